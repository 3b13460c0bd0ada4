// Benchmark: list_vms (a target with BENCH_VMS VMs, default 10,000; limit 500) through the whole
// product: a real MCP Client over the SDK's in-memory transport, the built server (dist/), the
// pipeline, policy, audit, the vim25 client, and a SOAP endpoint on 127.0.0.1. Two producers:
//   1. the simulated lab vCenter (src/lab) with BENCH_VMS filler VMs, in this process; it pages
//      (maxObjects is honoured), so its round trips show the cost per page;
//   2. govmomi's vcsim with BENCH_VMS VMs, launched as a child process (test/vcsim/launcher, built
//      with Go into .vcsim-build/ when missing; skipped with a message when Go or govmomi is absent),
//      paging at maxObjects as a vCenter does (the launcher's -page-results, paging.go).
//      Against the same vcsim, in the same rounds (one call of each per round, in rotating order,
//      so a load spike on the shared machine hits all of them alike), the references:
//      - govmomi, decode only (the headline): bench/govmomi-list, a Go client on Debian's govmomi
//        making the same request (paged RetrievePropertiesEx, same paths, the SAME maxObjects as
//        the product's listing), timed until every page is decoded into ObjectContent; also at
//        the other page sizes of BENCH_GOVMOMI_PAGES, so the fastest honest govmomi is the bar;
//      - the HTTP floor: the same SOAP requests through our transport with a reader that only
//        counts the bytes (no XML decoding, no rows, no MCP): what the wire and vcsim cost;
//      - govmomi with the mo.VirtualMachine load (a second line, never the headline).
//      Goals (docs/performance.md): list_vms <= 0.8x govmomi decode-only, <= 2x the floor.
// Every result prints the machine's load average (os.loadavg, sampled each round): on a shared
// machine the wall times move with it, the ratios of calls interleaved in one round much less.
// The MCP server runs in-process (InMemoryTransport): `--lab` cannot be asked for 10,000 fillers,
// so spawning the binary over stdio is not an option there. Peak RSS is this process's maxRSS, so
// for the lab run it includes the simulator itself. The server's own memory is measured apart,
// against the same vcsim: `dist/main.js` spawned over stdio as an MCP client starts it, its
// VmRSS read from /proc while idle and sampled during RUNS list_vms calls, then its VmHWM.
//
// Usage: npm run bench   (build first)   BENCH_RUNS=20 to change the number of measured rounds
//        (default 10); BENCH_VMS=40000 for another inventory size; BENCH_SCALE=2000,10000,40000
//        runs the vcsim phase at each size and prints a scale table; BENCH_GOVMOMI_PAGES=100,1000,2000
//        the other govmomi page sizes tried (that default); BENCH_VCSIM_PAGING=off for Debian's
//        one-page vcsim; BENCH_ONLY=lab or BENCH_ONLY=vcsim for one producer;
//        BENCH_SERVER_MAIN=/other/dist/main.js to measure another build's server process memory
//        (a baseline) against the same vcsim; BENCH_RSS_ROUNDS=5 to change how many fresh server
//        processes are measured (default 3).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { startLab, LAB_CA_FILE, LAB_POLICY_FILE } = await dist('lab/lab-mode.js');
const { startRuntime } = await dist('app/runtime.js');
const { envSecretSource } = await dist('core/secrets.js');
const { readSettings } = await dist('config/settings.js');
const { EMPTY_APP_CONFIG } = await dist('config/load.js');
const { PolicyFileStore } = await dist('config/policy-store.js');
const { VimClient } = await dist('vsphere/vim-client.js');
const { VM_LIST_PATHS } = await dist('vsphere/vms.js');
const { TREE_TYPES } = await dist('vsphere/inventory-tree.js');
const { DEFAULT_MAX_OBJECTS } = await dist('vsphere/property-collector.js');

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const RSS_ROUNDS = Number(process.env.BENCH_RSS_ROUNDS ?? 3);
const VMS = Number(process.env.BENCH_VMS ?? 10_000);
// vcsim pages as a vCenter does (test/vcsim/launcher/paging.go) unless BENCH_VCSIM_PAGING=off,
// which keeps Debian's vcsim answering every listing in one page, as it does in the tests.
const PAGED = process.env.BENCH_VCSIM_PAGING !== 'off';
const GOVMOMI_PAGES = (process.env.BENCH_GOVMOMI_PAGES ?? '100,1000,2000').split(',').map(Number).filter((n) => n > 0);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The 1-minute load average, sampled with every measured round. */
const load = () => loadavg()[0];
const LIMIT = 500;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function connect(runtime) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await runtime.built.newSession().connect(serverSide);
  await client.connect(clientSide);
  await client.listTools(); // the client then validates each result against the output schema, as real clients do
  return client;
}

/** One list_vms call through MCP; returns the target slot's result. */
function listVmsCall(label, client, target) {
  return async () => {
    const res = await client.callTool({ name: 'list_vms', arguments: { target, limit: LIMIT } });
    if (res.isError) throw new Error(`${label}: ${JSON.stringify(res.content)}`);
    const slot = res.structuredContent.results[0];
    if (!slot.ok) throw new Error(`${label}: ${JSON.stringify(slot.error)}`);
    return slot.ok;
  };
}

/** Calls list_vms RUNS times (after one warm-up) and measures each call. */
async function measure(label, client, target, stats) {
  const call = listVmsCall(label, client, target);
  const first = await call();
  const times = [];
  const trips = [];
  const loads = [];
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    loads.push(load());
    const before = stats();
    const t0 = performance.now();
    const ok = await call();
    times.push(performance.now() - t0);
    trips.push(stats() - before);
    bytes = JSON.stringify(ok).length;
  }
  times.sort((a, b) => a - b);
  return {
    producer: label,
    vms: first.total,
    returned: first.returned,
    median_ms: times[Math.floor(times.length / 2)],
    min_ms: times[0],
    max_ms: times.at(-1),
    round_trips: Math.max(...trips),
    result_kb: Math.round(bytes / 1024),
    peak_rss_mb: rssMb(),
    max_objects: DEFAULT_MAX_OBJECTS,
    load: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
  };
}

async function benchLab() {
  const stateDir = mkdtempSync(join(tmpdir(), 'zr-bench-lab-'));
  const lab = await startLab({ stateDir, env: {}, fillerVms: VMS - 8 });
  const runtime = await startRuntime({ config: lab.config, secrets: envSecretSource({ ...lab.env }), logger: silent, lab: true, fanOutTimeoutMs: 120_000 });
  const client = await connect(runtime);
  const pool = runtime.built.services.ext.vsphere;
  try {
    return await measure('lab vCenter (in-process)', client, 'lab-vc1', () => pool.client('lab-vc1').stats.roundTrips);
  } finally {
    await client.close().catch(() => undefined);
    await runtime.shutdown();
    await lab.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

// --- vcsim -------------------------------------------------------------------------------------
const GOPATH = '/usr/share/gocode';
const BINARY = join(ROOT, '.vcsim-build', 'vcsim-launcher');
const LAUNCHER_SRC = ['main.go', 'paging.go'].map((f) => join(ROOT, 'test', 'vcsim', 'launcher', f));
const TLS = { cert: join(ROOT, 'src', 'lab', 'tls', 'lab-server.pem'), key: join(ROOT, 'src', 'lab', 'tls', 'lab-server-key.pem') };

const GOVMOMI_LIST = join(ROOT, '.vcsim-build', 'govmomi-list');
const GOVMOMI_LIST_SRC = [join(ROOT, 'bench', 'govmomi-list', 'main.go'), join(ROOT, 'test', 'govlogin', 'login.go')];

/** Same build as test/support/vcsim.ts; returns an error message instead of throwing. */
function buildGo(binary, sources, pkg) {
  const newest = Math.max(...[sources].flat().map((f) => statSync(f).mtimeMs));
  if (existsSync(binary) && statSync(binary).mtimeMs >= newest) return null;
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) return "the 'go' command is missing (scripts/install-test-deps)";
  if (!existsSync(join(GOPATH, 'src', 'github.com', 'vmware', 'govmomi', 'simulator'))) return 'govmomi sources are missing (scripts/install-test-deps)';
  mkdirSync(dirname(binary), { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  const res = spawnSync('go', ['build', '-o', tmp, pkg], {
    cwd: ROOT, encoding: 'utf8', timeout: 300_000,
    env: { ...process.env, GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: process.env.GOCACHE ?? join(dirname(binary), 'gocache') },
  });
  if (res.status !== 0) return `building ${pkg} failed: ${res.stderr || res.error?.message}`;
  renameSync(tmp, binary);
  return null;
}

async function startVcsim() {
  const shm = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dsDir = mkdtempSync(join(shm, 'zrm-bench-vcsim-'));
  // VMs per resource pool and per standalone host: one cluster + one standalone host = 2 x VMS/2.
  const args = ['-vms', String(VMS / 2), '-hosts', '3', '-clusters', '1', '-standalone', '1', '-datastores', '1',
    '-user', 'bench', '-password', 'bench-pass-0', '-tls-cert', TLS.cert, '-tls-key', TLS.key, ...(PAGED ? ['-page-results'] : [])];
  const child = spawn(BINARY, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: dsDir } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-10_000); });
  const info = await new Promise((resolve, reject) => {
    // Building the model grows with its size (about 4 minutes for 40,000 VMs on a loaded 2-core
    // machine); it is not measured, so the wait only bounds a launcher that hangs.
    const startS = Math.max(300, Math.ceil(VMS / 40));
    const timer = setTimeout(() => reject(new Error(`vcsim did not start in ${startS} s: ${stderr}`)), startS * 1000);
    createInterface({ input: child.stdout }).once('line', (line) => { clearTimeout(timer); resolve(JSON.parse(line)); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`vcsim exited with ${code}: ${stderr}`)); });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dsDir, { recursive: true, force: true });
  };
  return { url: new URL(info.url), vms: info.vms, pid: child.pid, stop };
}

/** Peak RSS of a child process (Linux /proc), in MB; null elsewhere. */
function childPeakRssMb(pid) {
  const r = spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' });
  const m = /VmHWM:\s+(\d+) kB/.exec(r.stdout ?? '');
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

/** A field of /proc/<pid>/status (VmRSS, VmHWM) in MB; null when unreadable. */
function procMb(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * The server process alone: dist/main.js over stdio against the vcsim, as an operator runs it.
 * Idle RSS 1 s after tools/list, the highest VmRSS sampled every 20 ms during the calls, VmHWM.
 */
async function serverProcessMemory(sim, stateDir) {
  const targets = join(stateDir, 'targets.yaml');
  writeFileSync(targets, `targets:\n  - name: vcsim\n    host: ${sim.url.hostname}\n    port: ${sim.url.port}\n    credential_env_prefix: BENCH_VCSIM\n    ca_file: ${LAB_CA_FILE}\n`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [process.env.BENCH_SERVER_MAIN ?? join(ROOT, 'dist', 'main.js')],
    env: { ...process.env, TARGETS_FILE: targets, POLICY_FILE: LAB_POLICY_FILE, AUDIT_LOG_PATH: join(stateDir, 'server-audit.jsonl'), BENCH_VCSIM_USER: 'bench', BENCH_VCSIM_PASSWORD: 'bench-pass-0', LOG_LEVEL: 'warn' },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'bench-rss', version: '1.0.0' });
  await client.connect(transport);
  try {
    await client.listTools();
    const pid = transport.pid;
    await new Promise((r) => setTimeout(r, 1_000));
    const idle = procMb(pid, 'VmRSS');
    let sampled = 0;
    const sampler = setInterval(() => (sampled = Math.max(sampled, procMb(pid, 'VmRSS') ?? 0)), 20);
    try {
      for (let i = 0; i < RUNS; i++) {
        const res = await client.callTool({ name: 'list_vms', arguments: { target: 'vcsim', limit: LIMIT } }, undefined, { timeout: 300_000 });
        if (res.isError) throw new Error(`list_vms failed in the spawned server: ${JSON.stringify(res.content).slice(0, 500)}`);
      }
    } finally {
      clearInterval(sampler);
    }
    return { server_idle_rss_mb: idle, server_sampled_rss_mb: sampled, server_peak_rss_mb: procMb(pid, 'VmHWM') };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The Go reference client, logged in and waiting for "list" lines. */
async function startGovmomi(sim, vmPaths, treeTypes) {
  const args = ['-url', `${sim.url.origin}/sdk`, '-user', 'bench', '-password', 'bench-pass-0', '-ca', LAB_CA_FILE,
    '-vm-paths', vmPaths.join(','), '-tree-types', treeTypes.join(','), '-max-objects', String(DEFAULT_MAX_OBJECTS)];
  const child = spawn(GOVMOMI_LIST, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = await lines.next();
  if (ready.done) throw new Error('govmomi-list exited before it was ready');
  return {
    async list(maxObjects = DEFAULT_MAX_OBJECTS) {
      child.stdin.write(`list ${maxObjects}\n`);
      const line = await lines.next();
      if (line.done) throw new Error('govmomi-list exited');
      return JSON.parse(line.value);
    },
    stop() {
      child.stdin.end();
      child.kill('SIGTERM');
    },
  };
}

/**
 * The HTTP floor: the listing's SOAP requests (view, every page, destroy) through our transport,
 * with a body reader that counts bytes and reads nothing but the token.
 */
function httpFloor(vim, vmPaths) {
  const maxObjects = DEFAULT_MAX_OBJECTS;
  const reader = () => {
    let bytes = 0;
    let head = '';
    return {
      write(chunk) {
        bytes += chunk.length;
        if (head.length < 4096) head += Buffer.from(chunk.subarray(0, 4096)).toString('latin1');
      },
      end() {
        return { value: { bytes, token: /<token>([^<]*)<\/token>/.exec(head)?.[1] } };
      },
    };
  };
  const propSet = [{ type: 'VirtualMachine', all: false, pathSet: vmPaths }, ...TREE_TYPES.map((t) => ({ type: t, all: false, pathSet: ['name', 'parent'] }))];
  return async () => {
    const sc = vim.content;
    const view = await vim.invoke('CreateContainerView', sc.viewManager, { container: sc.rootFolder, type: ['VirtualMachine', ...TREE_TYPES], recursive: true });
    let bytes = 0;
    let pages = 1;
    try {
      const objectSet = [{ obj: view, skip: true, selectSet: [{ _type: 'TraversalSpec', name: 'view', type: 'ContainerView', path: 'view', skip: false }] }];
      let page = await vim.session.invokeReading('RetrievePropertiesEx', sc.propertyCollector, { specSet: { propSet, objectSet }, options: { maxObjects } }, {}, reader, () => false);
      bytes += page.bytes;
      while (page.token) {
        page = await vim.session.invokeReading('ContinueRetrievePropertiesEx', sc.propertyCollector, { token: page.token }, {}, reader, () => false);
        bytes += page.bytes;
        pages++;
      }
    } finally {
      await vim.invoke('DestroyView', view, {});
    }
    return { bytes, pages };
  };
}


async function benchVcsim() {
  const problem = buildGo(BINARY, LAUNCHER_SRC, './test/vcsim/launcher') ?? buildGo(GOVMOMI_LIST, GOVMOMI_LIST_SRC, './bench/govmomi-list');
  if (problem) return { skipped: `vcsim row skipped: ${problem}` };
  const t0 = performance.now();
  const sim = await startVcsim();
  const startup = Math.round((performance.now() - t0) / 1000);
  const stateDir = mkdtempSync(join(tmpdir(), 'zr-bench-vcsim-'));
  const { settings } = readSettings({ AUDIT_LOG_PATH: join(stateDir, 'audit.jsonl') });
  settings.auditLogPath = join(stateDir, 'audit.jsonl');
  const target = { name: 'vcsim', host: sim.url.hostname, port: Number(sim.url.port), protocol: 'https', insecure: false, caFile: LAB_CA_FILE, credentialPrefix: 'BENCH_VCSIM', tags: [], standaloneHost: false };
  const config = {
    settings,
    targets: [target],
    app: EMPTY_APP_CONFIG,
    policy: new PolicyFileStore(LAB_POLICY_FILE, false),
    confirmationTtlSeconds: settings.confirmationTtlSeconds,
    warnings: [],
    notices: [],
  };
  const secrets = envSecretSource({ BENCH_VCSIM_USER: 'bench', BENCH_VCSIM_PASSWORD: 'bench-pass-0' });
  const runtime = await startRuntime({ config, secrets, logger: silent, fanOutTimeoutMs: 300_000 });
  const client = await connect(runtime);
  const pool = runtime.built.services.ext.vsphere;
  const floorClient = new VimClient(target, { secrets, keepaliveMs: 0 });
  let govmomi;
  try {
    await floorClient.connect();
    const vmPaths = VM_LIST_PATHS.filter((p) => p !== 'config.createDate'); // vcsim is API 6.5 (vms.ts)
    govmomi = await startGovmomi(sim, vmPaths, [...TREE_TYPES]);
    const floor = httpFloor(floorClient, vmPaths);
    const product = listVmsCall('vcsim', client, 'vcsim');
    const trips = () => pool.client('vcsim').stats.roundTrips;
    // Warm-up round (JIT, sockets, vcsim's caches), then RUNS measured rounds in rotating order.
    const first = await product();
    const g0 = await govmomi.list();
    for (const size of GOVMOMI_PAGES) await govmomi.list(size);
    await floor();
    const times = { product: [], productCpu: [], govmomi: [], govmomiDecoded: [], govmomiDecodedCpu: [], floor: [], floorCpu: [], loads: [] };
    const sweep = Object.fromEntries(GOVMOMI_PAGES.map((n) => [n, { decoded: [], pages: 0 }]));
    let roundTrips = 0;
    let floorRun = { bytes: 0, pages: 0 };
    const steps = {
      product: async () => {
        const before = trips();
        const cpu = process.cpuUsage();
        const t = performance.now();
        await product();
        times.product.push(performance.now() - t);
        const used = process.cpuUsage(cpu);
        times.productCpu.push((used.user + used.system) / 1000);
        roundTrips = Math.max(roundTrips, trips() - before);
      },
      govmomi: async () => {
        const r = await govmomi.list();
        times.govmomi.push(r.ms);
        times.govmomiDecoded.push(r.decoded_ms);
        times.govmomiDecodedCpu.push(r.decoded_cpu_ms);
      },
      floor: async () => {
        const cpu = process.cpuUsage();
        const t = performance.now();
        floorRun = await floor();
        times.floor.push(performance.now() - t);
        const used = process.cpuUsage(cpu);
        times.floorCpu.push((used.user + used.system) / 1000);
      },
      ...Object.fromEntries(GOVMOMI_PAGES.map((n) => [`govmomi_${n}`, async () => {
        const r = await govmomi.list(n);
        sweep[n].decoded.push(r.decoded_ms);
        sweep[n].pages = r.pages;
      }])),
    };
    const order = Object.keys(steps);
    for (let i = 0; i < RUNS; i++) {
      times.loads.push(load());
      for (let k = 0; k < order.length; k++) await steps[order[(i + k) % order.length]]();
    }
    const bytes = floorRun.bytes;
    // Each round a fresh server process: its peak depends on when V8 collects, so several are read.
    const memory = [];
    for (let r = 0; r < RSS_ROUNDS; r++) memory.push(await serverProcessMemory(sim, stateDir));
    const spread = (key) => {
      const xs = memory.map((m) => m[key]).sort((a, b) => a - b);
      return { min: xs[0], median: xs[Math.floor(xs.length / 2)], max: xs.at(-1), all: memory.map((m) => m[key]) };
    };
    const server = { server_idle_rss_mb: spread('server_idle_rss_mb'), server_sampled_rss_mb: spread('server_sampled_rss_mb'), server_peak_rss_mb: spread('server_peak_rss_mb') };
    const m = { product: median(times.product), govmomi: median(times.govmomi), decoded: median(times.govmomiDecoded), floor: median(times.floor) };
    // The fastest govmomi decode over every page size tried, the product's own included.
    let best = { max_objects: DEFAULT_MAX_OBJECTS, decoded_ms: m.decoded, pages: g0.pages };
    for (const n of GOVMOMI_PAGES) {
      const d = median(sweep[n].decoded);
      if (d < best.decoded_ms) best = { max_objects: n, decoded_ms: d, pages: sweep[n].pages };
    }
    const loads = [...times.loads].sort((a, b) => a - b);
    return {
      producer: 'vcsim (child process)', vms: first.total, returned: first.returned, rounds: RUNS,
      median_ms: m.product, min_ms: Math.min(...times.product), max_ms: Math.max(...times.product), product_cpu_ms: median(times.productCpu),
      round_trips: roundTrips, max_objects: DEFAULT_MAX_OBJECTS, floor_pages: floorRun.pages,
      peak_rss_mb: rssMb(), simulator_rss_mb: childPeakRssMb(sim.pid), simulator_startup_s: startup,
      govmomi_ms: m.govmomi, govmomi_decoded_ms: m.decoded, govmomi_pages: g0.pages, govmomi_best: best,
      govmomi_sweep: Object.fromEntries(GOVMOMI_PAGES.map((n) => [n, { decoded_ms: median(sweep[n].decoded), pages: sweep[n].pages }])),
      govmomi_decoded_cpu_ms: median(times.govmomiDecodedCpu), floor_cpu_ms: median(times.floorCpu),
      floor_ms: m.floor, page_mb: +(bytes / 1e6).toFixed(1),
      vs_govmomi: m.product / m.govmomi, vs_govmomi_decoded: m.product / m.decoded, vs_govmomi_best: m.product / best.decoded_ms, vs_floor: m.product / m.floor,
      load: { min: loads[0], median: median(loads), max: loads.at(-1) },
      ...server,
    };
  } finally {
    govmomi?.stop();
    await floorClient.close();
    await client.close().catch(() => undefined);
    await runtime.shutdown();
    await sim.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const fmt = (v) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(0)) : String(v ?? '-'));
function table(rows) {
  const cols = ['producer', 'vms', 'returned', 'median_ms', 'min_ms', 'max_ms', 'round_trips', 'result_kb', 'peak_rss_mb', 'simulator_rss_mb'];
  const cells = [cols, ...rows.map((r) => cols.map((c) => fmt(r[c])))];
  const widths = cols.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n');
}

// Each producer runs in its own Node process, so its peak RSS is its own.
const phase = process.argv[process.argv.indexOf('--phase') + 1];
const f0 = (x) => x.toFixed(0);
const f2 = (x) => x.toFixed(2);
const loadText = (l) => `load ${l.min.toFixed(1)} / ${l.median.toFixed(1)} / ${l.max.toFixed(1)} (1-min average, min / median / max over the rounds; ${cpus().length} cores)`;

/** The note for one vcsim size: the headline, then the second lines. */
function vcsimNote(r) {
  const b = r.govmomi_best;
  const sweep = Object.entries(r.govmomi_sweep).map(([n, v]) => `${n}: ${f0(v.decoded_ms)} ms / ${v.pages} page(s)`).join(', ');
  const mmm = (x) => `${x.min} / ${x.median} / ${x.max} MB (${x.all.join(', ')})`;
  const paging = PAGED ? 'vcsim pages at maxObjects (launcher -page-results)' : "Debian's vcsim, one page whatever maxObjects";
  return `${r.vms} VMs on vcsim (${paging}), medians of ${r.rounds} rounds (rotating order), ${loadText(r.load)}:\n` +
    `  list_vms over MCP:            ${f0(r.median_ms)} ms  (min ${f0(r.min_ms)}, max ${f0(r.max_ms)}; maxObjects ${r.max_objects}, ${r.round_trips} SOAP round trips)\n` +
    `  govmomi decode-only, same page size (${r.max_objects}): ${f0(r.govmomi_decoded_ms)} ms  (${r.govmomi_pages} page(s))\n` +
    `  govmomi decode-only, best page size (${b.max_objects}): ${f0(b.decoded_ms)} ms  (${b.pages} page(s); tried ${r.max_objects} and ${sweep})\n` +
    (Object.values(r.govmomi_sweep).every((v) => v.pages === r.govmomi_pages) ? `    (every size gave ${r.govmomi_pages} page(s): this vcsim ignores maxObjects, so "best" is noise between equal requests)\n` : '') +
    `  HTTP floor:                   ${f0(r.floor_ms)} ms  (${r.floor_pages} page(s), ${r.page_mb} MB of XML)\n` +
    `  list_vms / govmomi decode-only: ${f2(r.vs_govmomi_decoded)}x same page size, ${f2(r.vs_govmomi_best)}x its best (goal <= 0.8x)\n` +
    `  list_vms / HTTP floor:          ${f2(r.vs_floor)}x (goal <= 2x)\n` +
    `  CPU time (load-proof; ours: this process, server + MCP client): list_vms ${f0(r.product_cpu_ms)} ms, govmomi decode-only ${f0(r.govmomi_decoded_cpu_ms)} ms ` +
    `(${f2(r.product_cpu_ms / r.govmomi_decoded_cpu_ms)}x), floor ${f0(r.floor_cpu_ms)} ms (${f2(r.product_cpu_ms / r.floor_cpu_ms)}x)\n` +
    `  second line, govmomi with the mo.VirtualMachine load: ${f0(r.govmomi_ms)} ms; list_vms / that ${f2(r.vs_govmomi)}x\n` +
    `  server process alone (${process.env.BENCH_SERVER_MAIN ?? 'dist/main.js'} over stdio, ${r.rounds} list_vms calls, ${r.server_idle_rss_mb.all.length} fresh processes,\n` +
    `  min / median / max and each): idle RSS ${mmm(r.server_idle_rss_mb)}; peak RSS (VmHWM) ${mmm(r.server_peak_rss_mb)};\n` +
    `  highest VmRSS sampled every 20 ms ${mmm(r.server_sampled_rss_mb)}\n` +
    `  vcsim built its model in ${r.simulator_startup_s} s (not counted); its RSS ${r.simulator_rss_mb} MB; bench process peak RSS ${r.peak_rss_mb} MB\n`;
}

if (process.argv.includes('--phase')) {
  const out = phase === 'lab' ? await benchLab() : await benchVcsim();
  process.stdout.write(`${JSON.stringify(out)}\n`);
} else {
  const run = (name, env = {}) => {
    const res = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--phase', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_800_000, env: { ...process.env, ...env } });
    if (res.status !== 0) throw new Error(`bench phase ${name} failed (${res.status})`);
    return JSON.parse(res.stdout.trim().split('\n').at(-1));
  };
  const only = process.env.BENCH_ONLY; // 'lab' or 'vcsim' runs one producer
  const sizes = (process.env.BENCH_SCALE ?? String(VMS)).split(',').map(Number);
  process.stdout.write(`list_vms(target, limit=${LIMIT}) over MCP, ${RUNS} measured rounds after 1 warm-up; node ${process.version}; load at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n\n`);
  if (only !== 'vcsim') {
    const lab = run('lab');
    process.stdout.write(`${table([lab])}\n(lab vCenter in this process, simulator included in peak_rss_mb; it pages at maxObjects ${lab.max_objects}: ${lab.round_trips} round trips for ${lab.vms} VMs; ${loadText(lab.load)})\n\n`);
  }
  if (only === 'lab') process.exit(0);
  const results = [];
  for (const n of sizes) {
    const r = run('vcsim', { BENCH_VMS: String(n) });
    if (r.skipped) {
      process.stdout.write(`${r.skipped}\n`);
      break;
    }
    results.push(r);
    process.stdout.write(`${vcsimNote(r)}\n`);
  }
  if (results.length > 1) {
    process.stdout.write('Scale (same definitions; RSS growth = server peak - idle, median process):\n' +
      '     VMs  list_vms  govmomi-decode(same/best)  floor  vs-govmomi(same/best)  vs-floor  XML MB  round-trips  RSS growth MB  MB per 1k VMs  load(median)\n');
    for (const r of results) {
      const growth = r.server_peak_rss_mb.median - r.server_idle_rss_mb.median;
      process.stdout.write(`${String(r.vms).padStart(8)}  ${f0(r.median_ms).padStart(8)}  ${`${f0(r.govmomi_decoded_ms)}/${f0(r.govmomi_best.decoded_ms)}`.padStart(25)}  ${f0(r.floor_ms).padStart(5)}  ` +
        `${`${f2(r.vs_govmomi_decoded)}/${f2(r.vs_govmomi_best)}`.padStart(21)}  ${f2(r.vs_floor).padStart(8)}  ${String(r.page_mb).padStart(6)}  ${String(r.round_trips).padStart(11)}  ` +
        `${String(growth).padStart(13)}  ${(growth / (r.vms / 1000)).toFixed(1).padStart(13)}  ${r.load.median.toFixed(1).padStart(12)}\n`);
    }
  }
}
