// Soak of HTTP mode and the gateway: the built product (scripts/soak-http-server.mjs, a child with
// an IPC channel) serving the lab (SOAK_VMS VMs) with a hostile downstream behind its gateway.
// Each worker, round after round: opens a 2025-era session (initialize, Mcp-Session-Id), lists,
// reads results of realistic size (list_vms of 200 VMs, a VM's details, events) and calls the
// hostile tools (poisoned description, ReDoS pattern, injected blocks), then abandons the session
// without DELETE; and sends 2026-07-28 stateless requests (no session) the same way. Before the
// first round the downstream flips a hint and starts paging tools/list forever. The server's live
// heap (after two full GCs), RSS and held sessions are sampled after the warm-up rounds and at
// the end. Prints one JSON summary; exits 1 when a client call failed or the server stopped answering.
//
// Usage: npm run build && node scripts/soak-http.mjs
//   SOAK_ROUNDS=60 SOAK_WARMUP=10 SOAK_CONCURRENCY=4 SOAK_VMS=500 SOAK_SAMPLE_EVERY=10
//   SOAK_USERS=30 (sessions of 30 distinct users, with tokens; default: loopback, no token)
//   SOAK_DATABASE_URL=postgres://... (central mode; a disposable database: the audit lines land there)
import { fork } from 'node:child_process';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fencedValue } from './untrusted-text.mjs';

const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 60);
const WARMUP = Math.min(Number(process.env.SOAK_WARMUP ?? 10), ROUNDS);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 4);
const SAMPLE_EVERY = Number(process.env.SOAK_SAMPLE_EVERY ?? 10);

const child = fork(new URL('./soak-http-server.mjs', import.meta.url), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const replies = [];
let waiting;
child.on('message', (m) => {
  if (waiting) {
    const w = waiting;
    waiting = undefined;
    w(m);
  } else replies.push(m);
});
const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
const ask = (what) => new Promise((resolve, reject) => {
  waiting = resolve;
  if (what) child.send(what);
  exited.then((code) => reject(new Error(`the server exited (${code})`)));
});
const { url, tokens } = replies.shift() ?? await ask();
let nextUser = 0;
/** Request options for the next user's token (none on loopback without SOAK_USERS). */
const asNextUser = () => (tokens.length ? { requestInit: { headers: { authorization: `Bearer ${tokens[nextUser++ % tokens.length]}` } } } : {});

const calls = [
  ['list_vms', { target: 'all', limit: 200 }],
  ['get_vm_details', { target: 'lab-vc1', vm: 'app-01' }],
  ['get_events', { target: 'lab-vc1', minutes: 30 }],
  ['evil__poisoned', { key: 'k' }],
  ['evil__redos', { value: `${'a'.repeat(40)}!` }],
  ['evil__inject', {}],
  ['list_downstream', {}],
];
const codes = {};
const msByTool = {};
let done = 0;
let clientFailures = 0;
const count = (code) => { codes[code] = (codes[code] ?? 0) + 1; };

function outcome(r) {
  if (!r.isError) return 'ok';
  const value = fencedValue(r.content?.[0]?.text ?? '');
  return typeof value === 'object' ? value.error?.code ?? 'no-code' : 'downstream-error';
}

async function run(callTool) {
  for (const [name, args] of calls) {
    const t0 = Date.now();
    try {
      count(`${name}: ${outcome(await callTool(name, args))}`);
    } catch (err) {
      clientFailures++;
      count(`${name}: client ${err.code ?? err.message}`);
    }
    (msByTool[name] ??= []).push(Date.now() - t0);
    done++;
  }
}

/** A 2025-era session, used and dropped without DELETE (as a client that crashes or loses its network). */
async function abandonedSession() {
  const client = new V1Client({ name: 'soak-legacy', version: '1.0.0' });
  await client.connect(new V1HttpTransport(new URL(url), asNextUser()));
  await client.listTools();
  await run((name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
  // Closes this side's connections only: no terminateSession(), so the server is never told.
  await client.close();
}

const modern = new Client({ name: 'soak-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await modern.connect(new StreamableHTTPClientTransport(new URL(url), asNextUser()));
const stateless = () => run((name, args) => modern.callTool({ name, arguments: args }, { timeout: 60_000 }));

// The downstream turns hostile in time too: a flipped hint, then tools/list pages forever.
for (const name of ['evil__flip', 'evil__paginate_forever']) await modern.callTool({ name, arguments: {} }, { timeout: 60_000 }).catch(() => undefined);

const samples = [];
const sample = async (round) => samples.push({ round, ...(await ask('sample')) });
const start = Date.now();
await sample(0);
let round = 0;
let warm;
while (round < ROUNDS) {
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => (i % 2 ? stateless() : abandonedSession()).catch((err) => {
    clientFailures++;
    count(`client:${err.code ?? err.message}`);
  })));
  round++;
  if (round === WARMUP) warm = await sample(round).then(() => samples.at(-1));
  else if (round % SAMPLE_EVERY === 0 || round === ROUNDS) await sample(round);
}
const seconds = (Date.now() - start) / 1000;
const end = samples.at(-1);
// Still answering at the end: a plain read within its bound.
const alive = await modern.callTool({ name: 'list_targets', arguments: {} }, { timeout: 30_000 }).then((r) => !r.isError, () => false);
await modern.close().catch(() => undefined);
child.send('stop');
await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
child.kill('SIGKILL');
const summary = {
  users: tokens.length || 'one (loopback, no token)', rounds: ROUNDS, warmup_rounds: WARMUP, concurrency: CONCURRENCY, calls: done, seconds: Math.round(seconds), calls_per_second: Math.round(done / seconds),
  client_failures: clientFailures, alive_at_end: alive, codes,
  median_ms: Object.fromEntries(Object.entries(msByTool).map(([k, v]) => [k, v.sort((a, b) => a - b)[Math.floor(v.length / 2)]])),
  heap_mb: { after_warmup: warm?.heap_mb, end: end.heap_mb, growth_after_warmup: end.heap_mb - (warm?.heap_mb ?? end.heap_mb) },
  rss_mb: { after_warmup: warm?.rss_mb, end: end.rss_mb },
  legacy_sessions_held: { after_warmup: warm?.sessions, end: end.sessions },
  samples,
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
process.exit(clientFailures || !alive ? 1 : 0);
