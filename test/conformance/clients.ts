// Runs VMware's own clients against a vim25 endpoint: the govmomi program in ./govmomi (built
// with Debian's govmomi sources, like the vcsim launcher) and the pyVmomi script in ./pyvmomi
// (Debian's python3-pyvmomi under /usr/bin/python3). Each prints one JSON result per flow.
// A missing Go toolchain, govmomi source or pyVmomi FAILS loudly: run scripts/install-test-deps.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GO_SRC = join(ROOT, 'test', 'conformance', 'govmomi');
const GO_LOGIN = join(ROOT, 'test', 'govlogin');
const PY_SCRIPT = join(ROOT, 'test', 'conformance', 'pyvmomi', 'conformance.py');
const BUILD_DIR = join(ROOT, '.vcsim-build');
const BINARY = join(BUILD_DIR, 'govmomi-conformance');
const GOPATH = '/usr/share/gocode';
const PYTHON = '/usr/bin/python3';
const HINT = 'Run scripts/install-test-deps (Debian: golang-go golang-github-vmware-govmomi-dev python3-pyvmomi); the conformance suite never skips.';

export interface FlowResult {
  flow: string;
  ok: boolean;
  detail?: string;
  error?: string;
}

export interface Endpoint {
  host: string;
  port: number;
  user: string;
  password: string;
  /** 'https' or 'http' (vcsim serves plain http unless given a certificate). */
  scheme: string;
}

/** The client's own files and the login it shares with the bench (test/govlogin). */
function newestSource(): number {
  return Math.max(...[GO_SRC, GO_LOGIN].flatMap((dir) => readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs)));
}

export function buildGovmomiClient(): string {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new Error(`conformance: the 'go' command is missing. ${HINT}`);
  if (!existsSync(join(GOPATH, 'src', 'github.com', 'vmware', 'govmomi', 'vim25'))) throw new Error(`conformance: govmomi sources not found under ${GOPATH}. ${HINT}`);
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= newestSource()) return BINARY;
  mkdirSync(BUILD_DIR, { recursive: true });
  const tmp = `${BINARY}.${process.pid}.tmp`;
  const res = spawnSync('go', ['build', '-o', tmp, './test/conformance/govmomi'], {
    cwd: ROOT, encoding: 'utf8', timeout: 300_000,
    env: { ...process.env, GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: process.env.GOCACHE ?? join(BUILD_DIR, 'gocache') },
  });
  if (res.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`conformance: building the govmomi client failed:\n${res.stderr || res.error?.message}\n${HINT}`);
  }
  renameSync(tmp, BINARY);
  return BINARY;
}

export function checkPyvmomi(): void {
  const res = spawnSync(PYTHON, ['-c', 'import pyVmomi, pyVim.connect'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) throw new Error(`conformance: ${PYTHON} cannot import pyVmomi: ${res.stderr || res.error?.message}. ${HINT}`);
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<FlowResult[]> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-8_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${cmd} exited with ${code ?? signal}:\n${err}`));
        return;
      }
      resolveRun(out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as FlowResult));
    });
  });
}

export function runGovmomi(binary: string, e: Endpoint): Promise<FlowResult[]> {
  const url = new URL(`${e.scheme}://127.0.0.1/sdk`);
  url.port = String(e.port);
  url.username = encodeURIComponent(e.user);
  url.password = encodeURIComponent(e.password);
  return run(binary, ['-url', url.toString(), '-flow-timeout', '20s'], 180_000);
}

export function runPyvmomi(e: Endpoint): Promise<FlowResult[]> {
  return run(PYTHON, [PY_SCRIPT, e.host, String(e.port), e.user, e.password], 180_000);
}

/** A side-by-side table for the test output: where the lab and the reference disagree. */
export function differences(client: string, lab: FlowResult[], reference: FlowResult[]): string {
  const ref = new Map(reference.map((r) => [r.flow, r]));
  const rows = lab.map((l) => {
    const r = ref.get(l.flow);
    const mark = l.ok === (r?.ok ?? false) ? ' ' : '≠';
    return `${mark} ${l.ok ? 'ok  ' : 'FAIL'} ${r ? (r.ok ? 'ok  ' : 'FAIL') : '-   '} ${l.flow}` +
      (l.ok ? '' : `\n       lab: ${l.error}`) + (r && !r.ok ? `\n       vcsim: ${r.error}` : '');
  });
  const okLab = lab.filter((r) => r.ok).length;
  const okRef = reference.filter((r) => r.ok).length;
  return `${client}: ${okLab}/${lab.length} flows succeed against the lab, ${okRef}/${reference.length} against vcsim\n` +
    `  lab  vcsim flow\n${rows.join('\n')}`;
}
