// Heap companion to soak.mjs: the same product in one process (lab + runtime + a real MCP Client
// over the in-memory transport), 1,000 mixed reads per round, then a full GC and heapUsed. Started
// like --lab, the lab keeps no call log (tests attach one); if one is attached it is cleared before
// each measurement, so what is measured is the server's own heap (plus the simulator's state).
//
// Usage: npm run build && node --expose-gc scripts/soak-heap.mjs   SOAK_ROUNDS=10
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { startLab } = await dist('lab/lab-mode.js');
const { startRuntime } = await dist('app/runtime.js');
const { envSecretSource } = await dist('core/secrets.js');

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 10);
const lab = await startLab({ stateDir: mkdtempSync(join(tmpdir(), 'zr-soak-heap-')), env: {} });
const secrets = envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials });
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const runtime = await startRuntime({ config: lab.config, secrets, logger: silent, lab: true, extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'soak-heap', version: '1.0.0' });
await runtime.built.newSession().connect(serverSide);
await client.connect(clientSide);

const calls = [['list_vms', { target: 'all', limit: 50 }], ['get_vm_details', { target: 'lab-vc1', vm: 'app-01' }], ['list_targets', {}], ['zerto_find_protection', { vm: 'web-01' }], ['get_events', { target: 'lab-vc1', minutes: 30 }]];
const rows = [];
for (let round = 0; round <= ROUNDS; round++) {
  if (round > 0) for (let i = 0; i < 1000; i++) await client.callTool({ name: calls[i % calls.length][0], arguments: calls[i % calls.length][1] });
  const served = lab.callLog?.calls.length ?? 0;
  lab.callLog?.clear();
  globalThis.gc();
  globalThis.gc();
  rows.push({ calls: round * 1000, heap_mb: Math.round(process.memoryUsage().heapUsed / 1e6), lab_calls_logged: served });
}
process.stdout.write(`${JSON.stringify(rows)}\n`);
await client.close();
await runtime.shutdown();
await lab.stop();
