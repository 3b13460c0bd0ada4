#!/usr/bin/env node
// Benchmark: how fast the built binary starts. Spawns `node dist/main.js` over and over and times
// 1. spawn -> the `initialize` answer on stdout,
// 2. spawn -> the `tools/list` answer (sent right after `initialized`, as an MCP client does),
// 3. `--version` and `--help` until the process exits,
// and reads the server's RSS once it is idle (a second after tools/list, from /proc) and the CPU
// time it used until the tools/list answer (also /proc: less sensitive to machine load than wall time).
// The server runs with a throwaway targets file (one unreachable vCenter, never contacted: the pool
// logs in lazily) and audit log, so it starts as an operator's would, not in lab mode.
//
// Usage: npm run build && node scripts/bench-startup.mjs   (BENCH_RUNS=15 to change the count)
// BENCH_ARGS="--lab" starts the server with those arguments instead (lab mode: the simulated lab
// comes up in-process first, so that row measures the lab's start as well as the server's).
// BENCH_BASELINE=/path/to/other/dist/main.js times that build too, in the same rounds (one run of
// each per round, alternating), and prints the ratio: on a loaded machine the absolute times swing
// by 2x from minute to minute, the ratio much less.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = process.env.BENCH_MAIN ?? join(ROOT, 'dist', 'main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 11);
const BASELINE = process.env.BENCH_BASELINE;
const ARGS = (process.env.BENCH_ARGS ?? '').split(/\s+/).filter(Boolean);

const dir = mkdtempSync(join(tmpdir(), 'zr-bench-start-'));
writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - name: vc1\n    host: 127.0.0.1\n    port: 9\n    credential_env_prefix: VC1\n');
writeFileSync(join(dir, 'policy.yaml'), 'rules: []\n');
const env = {
  ...process.env,
  TARGETS_FILE: join(dir, 'targets.yaml'),
  POLICY_FILE: join(dir, 'policy.yaml'),
  AUDIT_LOG_PATH: join(dir, 'audit.jsonl'),
  VC1_USER: 'u',
  VC1_PASSWORD: 'p',
  LOG_LEVEL: 'warn',
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The server process's own resident set (VmRSS) or peak (VmHWM), in MB, read from /proc. */
function serverRssMb(pid, field = 'VmRSS') {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) the process has used, from /proc/<pid>/stat: on a shared machine it
 * moves much less with the load than the wall time does (10 ms ticks; read at the tools/list answer).
 */
function serverCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat; [0] here is field 3 (state).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = 100;

/** One server start: times to the initialize and tools/list answers, then the idle RSS. */
function serverRun(main, measureRss) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [main, ...ARGS], { env, cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const send = (msg) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    let buf = '';
    let stderr = '';
    const out = {};
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => {
      if (out.list === undefined) reject(new Error(`server exited (${code}) before tools/list: ${stderr}`));
    });
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (msg.id === 1) {
          out.init = performance.now() - t0;
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (msg.id === 2) {
          out.list = performance.now() - t0;
          out.cpu = serverCpuMs(child.pid);
          out.tools = msg.result.tools.length;
          const finish = () => {
            child.stdin.end();
            child.once('exit', () => resolve(out));
          };
          if (!measureRss) finish();
          else setTimeout(() => ((out.rss = serverRssMb(child.pid)), (out.hwm = serverRssMb(child.pid, 'VmHWM')), finish()), 1_000);
        }
      }
    });
    // Sent at once, as clients do: the server reads it when it is ready.
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  });
}

function flagRun(main, flag) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, main ? [main, flag] : ['-e', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${flag} exited ${code}`))));
  });
}

function emptySeries() {
  return { init: [], list: [], cpu: [], rss: [], hwm: [], version: [], help: [], tools: 0 };
}

async function round(main, series, measureRss) {
  const r = await serverRun(main, measureRss);
  series.init.push(r.init);
  series.list.push(r.list);
  series.tools = r.tools;
  if (r.cpu != null) series.cpu.push(r.cpu);
  if (r.rss != null) series.rss.push(r.rss);
  if (r.hwm != null) series.hwm.push(r.hwm);
  series.version.push(await flagRun(main, '--version'));
  series.help.push(await flagRun(main, '--help'));
}

const fmt = (xs) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
const ROWS = [
  ['init', 'spawn -> initialize answered:'],
  ['list', 'spawn -> tools/list answered: '],
  ['version', '--version until exit:        '],
  ['help', '--help until exit:           '],
];

function report(label, s) {
  process.stdout.write(`${label}\n`);
  for (const [k, title] of ROWS) process.stdout.write(`  ${title} ${fmt(s[k])}${k === 'list' ? ` (${s.tools} tools)` : ''}\n`);
  if (s.cpu.length) process.stdout.write(`  server CPU time at tools/list:  median ${median(s.cpu).toFixed(0)} ms (user + system)\n`);
  process.stdout.write(`  server RSS 1 s after tools/list: median ${median(s.rss)} MB (peak VmHWM ${median(s.hwm)} MB)\n`);
}

try {
  const { loadavg } = await import('node:os');
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  const loadBefore = load();
  // Warm the page cache (and Node's compile cache, where it is on).
  await serverRun(MAIN, false);
  if (BASELINE) await serverRun(BASELINE, false);
  const main = emptySeries();
  const base = emptySeries();
  // Node itself, doing nothing: the floor under every row (and most of --version on a loaded box).
  const nodeFloor = [];
  for (let i = 0; i < RUNS; i++) {
    const measureRss = i < 5;
    await round(MAIN, main, measureRss);
    if (BASELINE) await round(BASELINE, base, measureRss);
    nodeFloor.push(await flagRun(undefined, '-e 0'));
  }
  process.stdout.write(`startup${ARGS.length ? ` with ${ARGS.join(' ')}` : ''}, ${RUNS} runs each, node ${process.version}, load average before ${loadBefore}, after ${load()}\n`);
  process.stdout.write(`node -e 0 until exit (the floor): ${fmt(nodeFloor)}\n`);
  report(MAIN, main);
  if (BASELINE) {
    report(`baseline ${BASELINE}`, base);
    process.stdout.write('ratio of medians (this build / baseline):\n');
    for (const [k, title] of ROWS) process.stdout.write(`  ${title} ${(median(main[k]) / median(base[k])).toFixed(2)}x\n`);
    if (main.cpu.length && base.cpu.length) process.stdout.write(`  CPU time at tools/list:       ${(median(main.cpu) / median(base.cpu)).toFixed(2)}x\n`);
    process.stdout.write(`  idle RSS:                     ${(median(main.rss) / median(base.rss)).toFixed(2)}x\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
