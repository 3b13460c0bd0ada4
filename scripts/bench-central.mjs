// Load ramp of central mode: reads through the whole product (the built server in dist/, real MCP
// clients over the SDK's in-memory transport, the pipeline, the shared read budget and the
// PostgreSQL audit chain) at 1, 50 and 200 concurrent sessions, against the simulated lab, for a
// few seconds per level. It prints calls/s, p50/p95 latency and the audit lines/s the chain took,
// then verifies the chain. What it shows: whether the chain (one statement per batch, no lock
// held across round trips) or the CPU limits throughput. On a shared machine the absolute numbers
// are noise; compare levels and builds on the same machine.
//
// Usage: npm run build && BENCH_DATABASE_URL=postgres://user@127.0.0.1:5432/scratch node scripts/bench-central.mjs
//        BENCH_LEVELS=1,50,200 (each at most 200), BENCH_SECONDS=10 (at most 60).
// The database must be on loopback and disposable: the script writes its audit lines there.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const url = process.env.BENCH_DATABASE_URL;
if (!url || !['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) {
  process.stderr.write('Set BENCH_DATABASE_URL to a disposable PostgreSQL database on loopback (see the file header).\n');
  process.exit(2);
}
const LEVELS = (process.env.BENCH_LEVELS ?? '1,50,200').split(',').map(Number).filter((n) => n >= 1 && n <= 200);
const SECONDS = Math.min(60, Number(process.env.BENCH_SECONDS ?? 10));
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const { startLab } = await dist('lab/lab-mode.js');
const { startRuntime } = await dist('app/runtime.js');
const { envSecretSource } = await dist('core/secrets.js');
const { verifyPgAudit } = await dist('state/pg/audit-verify.js');

const lab = await startLab({ stateDir: mkdtempSync(join(tmpdir(), 'zr-bench-central-')), env: {}, fillerVms: 200 });
const config = { ...lab.config, settings: { ...lab.config.settings, auditLogPath: join(mkdtempSync(join(tmpdir(), 'zr-bench-audit-')), 'audit.jsonl') } };
const runtime = await startRuntime({ config, secrets: envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials }), logger: silent, extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog, databaseUrl: url });
const db = new pg.Pool({ connectionString: url, max: 1 });
const lines = async () => Number((await db.query('SELECT count(*) AS n FROM audit_log')).rows[0].n);

async function session() {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench-central', version: '1.0.0' });
  await runtime.built.newSession().connect(serverSide);
  await client.connect(clientSide);
  return client;
}

const pct = (xs, p) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
console.log(`# central mode load ramp: list_vms (limit 20), ${SECONDS} s per level, levels ${LEVELS.join('/')}`);
console.log('sessions | calls/s | p50 ms | p95 ms | errors | audit lines/s | max backends waiting on an advisory lock');
for (const level of LEVELS) {
  const clients = await Promise.all(Array.from({ length: level }, session));
  const latencies = [];
  let errors = 0;
  const before = await lines();
  const end = Date.now() + SECONDS * 1_000;
  const t0 = Date.now();
  // How many of the server's connections wait on a lock (the chain's, or a rate key's) at once.
  let lockWaiters = 0;
  const sampler = setInterval(() => {
    db.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'zerto-rewind-mcp' AND wait_event_type = 'Lock' AND wait_event = 'advisory'")
      .then((r) => { lockWaiters = Math.max(lockWaiters, Number(r.rows[0].n)); }, () => undefined);
  }, 200);
  await Promise.all(clients.map(async (c) => {
    while (Date.now() < end) {
      const s = Date.now();
      const r = await c.callTool({ name: 'list_vms', arguments: { target: 'lab-vc1', limit: 20 } }).catch(() => ({ isError: true }));
      latencies.push(Date.now() - s);
      if (r.isError) errors += 1;
    }
  }));
  const secs = (Date.now() - t0) / 1_000;
  clearInterval(sampler);
  // Read lines land in batches shortly after their calls: wait for the queue to empty.
  await runtime.central.audit.drain(10_000);
  const written = (await lines()) - before;
  console.log(`${String(level).padStart(8)} | ${(latencies.length / secs).toFixed(1).padStart(7)} | ${String(pct(latencies, 0.5)).padStart(6)} | ${String(pct(latencies, 0.95)).padStart(6)} | ${String(errors).padStart(6)} | ${(written / secs).toFixed(1).padStart(13)} | ${lockWaiters}`);
  await Promise.all(clients.map((c) => c.close()));
}
const verdict = await verifyPgAudit(db);
console.log(`# chain: ${verdict.ok ? `intact, ${verdict.lines} rows` : `BROKEN at ${verdict.brokenAt}: ${verdict.reason}`}`);
await db.end();
await runtime.shutdown();
await lab.stop();
process.exit(verdict.ok ? 0 : 1);
