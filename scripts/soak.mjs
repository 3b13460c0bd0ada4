// Soak: 10,000 mixed tool calls against `zerto-rewind-mcp --lab`, spawned over stdio exactly as an
// MCP client runs it, with the server's RSS sampled from /proc every 250 calls. Mixed: inventory
// and detail reads, history, Zerto reads, guarded mutations (power, snapshot, lab guest writes),
// destructive proposals that are cancelled, and invalid calls. At the end the audit log is
// verified with `audit verify`. Prints one JSON summary (RSS samples, calls/s, error codes).
// HTTP mode (abandoned 2025-era sessions, 2026 stateless requests) and the gateway with a hostile
// downstream, with the live heap sampled: scripts/soak-http.mjs.
//
// Usage: npm run build && node scripts/soak.mjs   SOAK_CALLS=10000 SOAK_CONCURRENCY=4 SOAK_MIX=read SOAK_HEAP_MB=64
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fencedValue } from './untrusted-text.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'dist', 'main.js');
const CALLS = Number(process.env.SOAK_CALLS ?? 10_000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 4);
const SAMPLE_EVERY = 250;

const state = mkdtempSync(join(tmpdir(), 'zr-soak-'));
const audit = join(state, 'audit.jsonl');
const transport = new StdioClientTransport({
  // SOAK_HEAP_MB caps the server's V8 heap: surviving the run under a small cap shows the heap is
  // bounded (RSS alone also counts memory V8 has not given back yet).
  command: process.execPath, args: [...(process.env.SOAK_HEAP_MB ? [`--max-old-space-size=${process.env.SOAK_HEAP_MB}`] : []), BIN, '--lab'], cwd: state, stderr: 'ignore',
  env: { ...process.env, AUDIT_LOG_PATH: audit, ENABLE_DESTRUCTIVE: 'true', LOG_LEVEL: 'warn', TOOLSETS: 'all' },
});
const client = new Client({ name: 'soak', version: '1.0.0' });
await client.connect(transport);
const pid = transport.pid;

const VMS = ['app-01', 'web-01', 'web-02', 'win-app-01', 'test-01', 'erp-01', 'scratch-01'];
const pick = (a, i) => a[i % a.length];
const MIX = [
  (i) => ['list_vms', { target: 'all', limit: 50, offset: i % 3 }],
  (i) => ['get_vm_details', { target: 'lab-vc1', vm: pick(VMS.slice(0, 5), i) }],
  () => ['list_targets', {}],
  () => ['list_hosts', { target: 'all' }],
  () => ['list_datastores', { target: 'lab-vc1' }],
  () => ['get_events', { target: 'lab-vc1', minutes: 30 }],
  (i) => ['zerto_find_protection', { vm: pick(VMS, i) }],
  () => ['zerto_list_flr_sessions', {}],
  (i) => ['lab_write_guest_file', { vm: 'app-01', path: '/etc/soak.conf', content: `soak ${i}`, change_id: `soak-${i}` }],
  (i) => [i % 2 ? 'power_off_vm' : 'power_on_vm', { target: 'lab-vc2', vm: 'scratch-01' }],
  (i) => ['create_snapshot', { target: 'lab-vc1', vm: 'test-01', name: `soak-${i}` }],
  (i) => ['delete_vm', { target: 'lab-vc1', vm: 'test-01', change_id: `del-${i}` }],
  () => ['get_vm_details', { target: 'lab-vc1', vm: 'x\uD800' }],
  () => ['list_vms', { created_after: '2024-02-30' }],
  () => ['no_such_tool', {}],
];

// SOAK_MIX=read keeps only the read calls (to tell server growth from the simulator's history).
const mix = process.env.SOAK_MIX === 'read' ? MIX.slice(0, 8).filter((_, i) => i !== 8) : MIX;
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const samples = [];
const codes = {};
let done = 0;
let next = 0;
let failures = 0;
const start = Date.now();
samples.push({ calls: 0, rss_mb: Math.round(rss()) });

async function worker() {
  while (next < CALLS) {
    const i = next++;
    const [name, args] = mix[i % mix.length](i);
    try {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      let code = 'ok';
      if (r.isError) code = fencedValue(r.content[0].text).error?.code ?? 'no-code';
      else if (r.structuredContent?.state === 'pending' && r.structuredContent?.token) {
        await client.callTool({ name: 'cancel_action', arguments: { token: r.structuredContent.token } });
      }
      codes[code] = (codes[code] ?? 0) + 1;
    } catch (err) {
      failures++;
      codes[`client:${err.code ?? err.message}`] = (codes[`client:${err.code ?? err.message}`] ?? 0) + 1;
    }
    done++;
    if (done % SAMPLE_EVERY === 0) samples.push({ calls: done, rss_mb: Math.round(rss()) });
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
const seconds = (Date.now() - start) / 1000;
const finalRss = Math.round(rss());
await client.close();
await new Promise((r) => setTimeout(r, 500));
const verify = execFileSync(process.execPath, [BIN, 'audit', 'verify', audit], { encoding: 'utf8' }).trim();
const mb = samples.map((s) => s.rss_mb);
const firstHalf = mb.slice(1, Math.ceil(mb.length / 2));
const secondHalf = mb.slice(Math.ceil(mb.length / 2));
const avg = (a) => Math.round(a.reduce((x, y) => x + y, 0) / Math.max(1, a.length));
process.stdout.write(`${JSON.stringify({
  calls: done, concurrency: CONCURRENCY, seconds: Math.round(seconds), calls_per_second: Math.round(done / seconds),
  client_failures: failures, codes,
  rss_mb: { start: mb[0], min: Math.min(...mb), max: Math.max(...mb), final: finalRss, avg_first_half: avg(firstHalf), avg_second_half: avg(secondHalf) },
  samples, audit_verify: verify,
}, null, 2)}\n`);
