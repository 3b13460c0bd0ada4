#!/usr/bin/env node
// Benchmark: how fast the built binary starts. Spawns `node dist/main.js` over and over and times
// 1. spawn -> the `initialize` answer on stdout,
// 2. spawn -> the `tools/list` answer (sent right after `initialized`, as an MCP client does),
// 3. `--version` and `--help` until the process exits,
// and reads the server's RSS once it is idle (a second after tools/list, from /proc).
// The server runs with a throwaway targets file (one unreachable vCenter, never contacted: the pool
// logs in lazily) and audit log, so it starts as an operator's would, not in lab mode.
//
// Usage: npm run build && node scripts/bench-startup.mjs   (BENCH_RUNS=15 to change the count)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = process.env.BENCH_MAIN ?? join(ROOT, 'dist', 'main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 11);

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

function idleRssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** One server start: times to the initialize and tools/list answers, then the idle RSS. */
function serverRun(measureRss) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [MAIN], { env, stdio: ['pipe', 'pipe', 'pipe'] });
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
          out.tools = msg.result.tools.length;
          const finish = () => {
            child.stdin.end();
            child.once('exit', () => resolve(out));
          };
          if (!measureRss) finish();
          else setTimeout(() => ((out.rss = idleRssMb(child.pid)), finish()), 1_000);
        }
      }
    });
    // Sent at once, as clients do: the server reads it when it is ready.
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  });
}

function flagRun(flag) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [MAIN, flag], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${flag} exited ${code}`))));
  });
}

try {
  await serverRun(false); // warm the page cache (and Node's compile cache, where it is on)
  const init = [], list = [], rss = [], version = [], help = [];
  let tools = 0;
  for (let i = 0; i < RUNS; i++) {
    const r = await serverRun(i < 3);
    init.push(r.init);
    list.push(r.list);
    tools = r.tools;
    if (r.rss != null) rss.push(r.rss);
    version.push(await flagRun('--version'));
    help.push(await flagRun('--help'));
  }
  const fmt = (xs) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
  process.stdout.write(`startup of dist/main.js, ${RUNS} runs, node ${process.version}, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  process.stdout.write(`spawn -> initialize answered: ${fmt(init)}\n`);
  process.stdout.write(`spawn -> tools/list answered:  ${fmt(list)} (${tools} tools)\n`);
  process.stdout.write(`--version until exit:         ${fmt(version)}\n`);
  process.stdout.write(`--help until exit:            ${fmt(help)}\n`);
  process.stdout.write(`idle RSS after tools/list:    median ${median(rss)} MB\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
