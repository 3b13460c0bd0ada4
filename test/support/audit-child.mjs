// Child process for the full-disk test: writes audit lines through the built AuditWriter under a
// file-size limit (`ulimit -f`), so the kernel cuts a write short (EFBIG) exactly as a full disk
// would. Prints one JSON line: which writes resolved and which rejected.
import { AuditWriter } from '../../dist/audit/audit-writer.js';

const [path, count, size] = process.argv.slice(2);
const writer = new AuditWriter(path, () => []);
const results = [];
for (let i = 0; i < Number(count); i++) {
  try {
    await writer.write({ id: `call-${i}`, target: 't', tool: 'power_on_vm', phase: i % 2 ? 'executed' : 'executing', identity: 'c/1', args: { vm: 'x'.repeat(Number(size)) } });
    results.push('ok');
  } catch (err) {
    results.push(err.code ?? String(err.message));
  }
}
await writer.close();
process.stdout.write(`${JSON.stringify(results)}\n`);
