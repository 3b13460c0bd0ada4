// Starts govmomi's vcsim for a test: builds test/vcsim/launcher once into .vcsim-build/ (rebuilt
// when the launcher source is newer than the binary), runs it with the requested model, reads the
// JSON line it prints ({url, control}), and kills it in `stop()`. The launcher also exits when its
// stdin closes, so a crashed test run leaves no simulator behind.
//
// Missing Go or govmomi sources FAIL loudly (never skip): run scripts/install-test-deps.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { envSecretSource, type SecretSource } from '../../src/core/secrets.js';
import type { TargetConfig } from '../../src/vsphere/target-config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LAUNCHER_SRC = ['main.go', 'paging.go'].map((f) => join(ROOT, 'test', 'vcsim', 'launcher', f));
const BUILD_DIR = join(ROOT, '.vcsim-build');
const BINARY = join(BUILD_DIR, 'vcsim-launcher');
const GOPATH = '/usr/share/gocode';
const GOVMOMI = join(GOPATH, 'src', 'github.com', 'vmware', 'govmomi', 'simulator');
export const LAB_TLS = {
  cert: join(ROOT, 'src', 'lab', 'tls', 'lab-server.pem'),
  key: join(ROOT, 'src', 'lab', 'tls', 'lab-server-key.pem'),
  ca: join(ROOT, 'src', 'lab', 'tls', 'lab-ca.pem'),
};

const INSTALL_HINT = 'Run scripts/install-test-deps (Debian: golang-go golang-github-vmware-govmomi-dev); the vcsim suite never skips.';

/** Builds the launcher unless an up-to-date binary exists. Returns its path. */
export function buildVcsimLauncher(): string {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error || go.status !== 0) throw new Error(`vcsim: the 'go' command is missing. ${INSTALL_HINT}`);
  if (!existsSync(GOVMOMI)) throw new Error(`vcsim: govmomi sources not found at ${GOVMOMI}. ${INSTALL_HINT}`);
  if (existsSync(BINARY) && LAUNCHER_SRC.every((f) => statSync(BINARY).mtimeMs >= statSync(f).mtimeMs)) return BINARY;
  mkdirSync(BUILD_DIR, { recursive: true });
  // Parallel test files may build at once: each writes its own file, the rename is atomic.
  const tmp = `${BINARY}.${process.pid}.tmp`;
  const res = spawnSync('go', ['build', '-o', tmp, './test/vcsim/launcher'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, GOPATH, GO111MODULE: 'off', GOFLAGS: '', GOCACHE: process.env.GOCACHE ?? join(BUILD_DIR, 'gocache') },
    timeout: 300_000,
  });
  if (res.status !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`vcsim: building the launcher failed:\n${res.stderr || res.error?.message}\n${INSTALL_HINT}`);
  }
  renameSync(tmp, BINARY);
  return BINARY;
}

export interface VcsimOptions {
  /** VMs per resource pool and per standalone host (vcsim's Model.Machine). */
  vms?: number;
  hosts?: number;
  clusters?: number;
  standalone?: number;
  datastores?: number;
  user?: string;
  password?: string;
  instanceUuid?: string;
  /** Go duration, e.g. '2s': vcsim's SessionIdleTimeout. */
  sessionIdleTimeout?: string;
  /** Serve https with the lab certificate (verify with LAB_TLS.ca). */
  tls?: boolean;
  /** Per-method delays in ms, e.g. { RetrievePropertiesEx: 300 }. */
  delays?: Record<string, number>;
  /** Honour RetrieveOptions.maxObjects with tokens and ContinueRetrievePropertiesEx, as a vCenter
   *  does (test/vcsim/launcher/paging.go); Debian's vcsim answers every retrieval in one page. */
  pageResults?: boolean;
}

export interface Vcsim {
  url: URL;
  /** Base URL of the launcher's control endpoint. */
  control: string;
  vmCount: number;
  hostCount: number;
  user: string;
  password: string;
  /** Secrets holding `${prefix}_USER` / `_PASSWORD` for this simulator. */
  secrets(prefix?: string): SecretSource;
  /** A target config pointing at this simulator. */
  target(name: string, overrides?: Partial<TargetConfig>): TargetConfig;
  /** Every SOAP call hangs (until `hang(false)` or the client gives up). */
  hang(on: boolean): Promise<void>;
  /** Every SOAP call answers this HTTP status (0 restores normal service). */
  httpStatus(code: number): Promise<void>;
  /** Terminates every client session through vcsim's TerminateSession; returns how many. */
  expireSessions(): Promise<number>;
  stop(): Promise<void>;
}

// The control endpoint shares the simulator's listener, so with TLS it presents the lab certificate.
const controlAgent = new Agent({ connect: { ca: readFileSync(LAB_TLS.ca, 'utf8') } });

async function control(base: string, path: string): Promise<string> {
  const res = await request(`${base}${path}`, { dispatcher: controlAgent });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`vcsim control ${path}: ${res.statusCode} ${text}`);
  return text;
}

export async function startVcsim(opts: VcsimOptions = {}): Promise<Vcsim> {
  const binary = buildVcsimLauncher();
  const user = opts.user ?? 'vcsim-user';
  const password = opts.password ?? 'vcsim-pass-0';
  const args = [
    '-vms', String(opts.vms ?? 2),
    '-hosts', String(opts.hosts ?? 3),
    '-clusters', String(opts.clusters ?? 1),
    '-standalone', String(opts.standalone ?? 1),
    '-datastores', String(opts.datastores ?? 1),
    '-user', user,
    '-password', password,
  ];
  if (opts.instanceUuid) args.push('-uuid', opts.instanceUuid);
  if (opts.sessionIdleTimeout) args.push('-idle', opts.sessionIdleTimeout);
  if (opts.tls) args.push('-tls-cert', LAB_TLS.cert, '-tls-key', LAB_TLS.key);
  if (opts.pageResults) args.push('-page-results');
  if (opts.delays) args.push('-delay', Object.entries(opts.delays).map(([k, v]) => `${k}=${v}`).join(','));
  // Datastore folders on tmpfs: every VM writes files, and a disk makes big models slow.
  const shm = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dsDir = mkdtempSync(join(shm, 'zrm-vcsim-'));
  const child: ChildProcess = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: dsDir } });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const info = await new Promise<{ url: string; control: string; vms: number; hosts: number }>((resolveInfo, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`vcsim did not start in 120 s: ${stderr}`)), 120_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolveInfo(JSON.parse(line));
      } catch {
        reject(new Error(`vcsim printed an unexpected line: ${line}\n${stderr}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vcsim exited with ${code} before starting: ${stderr}`));
    });
  });
  const url = new URL(info.url);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin?.end();
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dsDir, { recursive: true, force: true });
  };
  return {
    url,
    control: info.control,
    vmCount: info.vms,
    hostCount: info.hosts,
    user,
    password,
    secrets(prefix = 'VCSIM') {
      return envSecretSource({ [`${prefix}_USER`]: user, [`${prefix}_PASSWORD`]: password });
    },
    target(name, overrides = {}) {
      return {
        name,
        host: url.hostname,
        port: Number(url.port),
        protocol: url.protocol === 'https:' ? 'https' : 'http',
        insecure: false,
        credentialPrefix: 'VCSIM',
        tags: [],
        standaloneHost: false,
        ...overrides,
      };
    },
    hang: async (on) => void (await control(info.control, `/_launcher/hang?on=${on ? 1 : 0}`)),
    httpStatus: async (code) => void (await control(info.control, `/_launcher/status?code=${code}`)),
    expireSessions: async () => Number(await control(info.control, '/_launcher/expire-sessions')),
    stop,
  };
}
