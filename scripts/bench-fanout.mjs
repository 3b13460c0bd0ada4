#!/usr/bin/env node
// Benchmark: what a dead vCenter costs a fan-out. Two targets: the simulated lab vCenter (lab-vc1,
// with BENCH_VMS VMs) and `dead`, a port on 127.0.0.1 that accepts TCP and never answers. Through
// MCP tools/call (in-process server and client, as in bench-list-vms.mjs):
// 1. the first list_vms on target "all", sent the moment the runtime has started: the startup
//    probe (target-breaker.ts) finds `dead` within its own deadline, so the dead slot costs at most
//    what remains of that probe, not the fan-out deadline;
// 2. then, in alternating rounds, list_vms on lab-vc1 alone and on "all": with the breaker open the
//    dead slot answers `unreachable` at once, so "all" should cost what lab-vc1 alone costs.
// Prints both medians and their ratio (the goal is within 1.1x: docs/performance.md).
//
// Usage: npm run build && node scripts/bench-fanout.mjs   (BENCH_RUNS, BENCH_VMS, BENCH_FANOUT_MS to change)
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { startLab } = await dist('lab/lab-mode.js');
const { startRuntime } = await dist('app/runtime.js');
const { envSecretSource } = await dist('core/secrets.js');

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const VMS = Number(process.env.BENCH_VMS ?? 2_000);
// The product's own fan-out deadline unless BENCH_FANOUT_MS sets one (a dead slot used to pay it on the first call).
const FANOUT_MS = Number(process.env.BENCH_FANOUT_MS ?? 0) || undefined;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const hole = createServer((s) => void s.resume().on('error', () => undefined));
await new Promise((r) => hole.listen(0, '127.0.0.1', r));
const stateDir = mkdtempSync(join(tmpdir(), 'zr-bench-fanout-'));
const lab = await startLab({ stateDir, env: {}, fillerVms: VMS - 8, zerto: false });
const vc1 = lab.config.targets.find((t) => t.name === 'lab-vc1');
const config = { ...lab.config, targets: [vc1, { ...vc1, name: 'dead', port: hole.address().port }] };
const runtime = await startRuntime({ config, secrets: envSecretSource({ ...lab.env }), logger: silent, lab: true, ...(FANOUT_MS ? { fanOutTimeoutMs: FANOUT_MS } : {}) });
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'bench', version: '1.0.0' });
await runtime.built.newSession().connect(serverSide);
await client.connect(clientSide);
await client.listTools();

async function listVms(target) {
  const t0 = performance.now();
  const res = await client.callTool({ name: 'list_vms', arguments: { target, limit: 100 } });
  const ms = performance.now() - t0;
  if (res.isError) throw new Error(JSON.stringify(res.content));
  const slots = res.structuredContent.results;
  if (!slots[0].ok) throw new Error(JSON.stringify(slots[0]));
  return { ms, slots };
}

try {
  // The first call after start, before anything warmed up: what a one-shot client pays.
  const first = await listVms('all');
  await listVms('lab-vc1'); // warm-up of the rounds below
  const deadFirst = first.slots.find((s) => s.target === 'dead');
  const solo = [];
  const all = [];
  let deadCode = '';
  for (let i = 0; i < RUNS; i++) {
    solo.push((await listVms('lab-vc1')).ms);
    const r = await listVms('all');
    all.push(r.ms);
    deadCode = r.slots.find((s) => s.target === 'dead').error?.code ?? 'ok';
  }
  process.stdout.write(`list_vms(limit=100), lab-vc1 with ${VMS} VMs + a target that accepts TCP and never answers; ${RUNS} rounds; ` +
    `node ${process.version}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  process.stdout.write(`first call on "all" right after start: ${first.ms.toFixed(0)} ms (dead slot: ${deadFirst.error?.code}` +
    `${deadFirst.error?.details?.breaker ? ', breaker open from the startup probe' : ''}; fan-out deadline ${FANOUT_MS ? `${FANOUT_MS} ms` : 'the default'})\n`);
  process.stdout.write(`then, medians: lab-vc1 alone ${median(solo).toFixed(0)} ms, "all" ${median(all).toFixed(0)} ms (dead slot: ${deadCode}); ` +
    `ratio ${(median(all) / median(solo)).toFixed(2)}x (goal <= 1.1x)\n`);
} finally {
  await client.close().catch(() => undefined);
  await runtime.shutdown();
  await lab.stop();
  hole.close();
  rmSync(stateDir, { recursive: true, force: true });
}
