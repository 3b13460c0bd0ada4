// `zerto-rewind-mcp audit verify FILE...`: checks the audit log's hash chain and says, in one
// line a human can act on, whether it is intact. Exit 0 when intact, 1 when broken, 2 on misuse.
import { verifyAuditFiles, type VerifyReport } from './verify.js';

export const AUDIT_USAGE = `Usage: zerto-rewind-mcp audit verify FILE...

Checks the hash chain of audit log files. Give rotated files oldest first, e.g.
  zerto-rewind-mcp audit verify audit.jsonl.2 audit.jsonl.1 audit.jsonl
Exit status: 0 intact, 1 broken (the first break is printed), 2 usage error.`;

export async function runAuditCommand(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const [sub, ...files] = argv;
  if (sub !== 'verify' || files.length === 0 || files.some((f) => f.startsWith('-'))) {
    err(`${AUDIT_USAGE}\n`);
    return 2;
  }
  const report = await verifyAuditFiles(files);
  out(`${formatReport(report)}\n`);
  return report.ok ? 0 : 1;
}

export function formatReport(r: VerifyReport): string {
  const counts = r.files.map((f) => `${f.path}: ${f.lines} lines`).join(', ');
  const extras = [
    ...(r.tornRecords ? [`${r.tornRecords} record(s) cut short by a crash, chained over`] : []),
    ...(r.unchainedLines ? [`${r.unchainedLines} line(s) from before chaining, not verifiable`] : []),
    ...r.notes,
  ];
  if (!r.ok && r.problem) {
    const where = r.problem.line > 0 ? `${r.problem.path} line ${r.problem.line}` : r.problem.path;
    return `BROKEN: ${where}: ${r.problem.reason}${counts ? `\n(read so far: ${counts})` : ''}`;
  }
  return [`OK: ${r.files.length} file(s), ${r.lines} lines, chain intact (${counts})`, ...extras.map((e) => `note: ${e}`)].join('\n');
}
