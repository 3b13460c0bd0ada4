// A throwaway PostgreSQL cluster for the central-mode tests: Debian's initdb/pg_ctl (package
// `postgresql`, scripts/install-test-deps) in a temp folder, on a free port of 127.0.0.1.
// PostgreSQL refuses to run as root, so under root the cluster belongs to an unprivileged
// system user `pgtest`, created here when missing.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  url: string;
  stop(): void;
  start(): void;
  /** `pg_ctl restart -m fast`: every connection is ended (57P01), the cluster is back at once. */
  restart(): void;
  /** `pg_ctl stop -m immediate`: a crash, no shutdown checkpoint. */
  stopImmediate(): void;
  /** SIGSTOP (true) or SIGCONT (false) to every process of the cluster: a database that stops answering. */
  freeze(on: boolean): void;
  destroy(): void;
}

function pgBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql; run scripts/install-test-deps (Debian package postgresql).');
  return join(root, versions[0]!, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = pgBin();
  const dir = mkdtempSync(join(tmpdir(), 'zr-pg-'));
  const asRoot = process.getuid?.() === 0;
  let uid: number | undefined;
  if (asRoot) {
    try {
      execFileSync('id', ['-u', 'pgtest'], { stdio: 'ignore' });
    } catch {
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'pgtest'], { stdio: 'ignore' });
    }
    uid = Number(execFileSync('id', ['-u', 'pgtest']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'pgtest']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'pgtest', '--', join(bin, cmd), ...args] : args, { stdio: 'pipe', cwd: dir });
  if (!asRoot) execFileSync(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'], { stdio: 'pipe' });
  else run('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const pgctl = (args: string[]) => (asRoot ? run('pg_ctl', args) : execFileSync(join(bin, 'pg_ctl'), args, { stdio: 'pipe' }));
  const start = () => { pgctl(['-D', join(dir, 'data'), '-o', opts, '-l', join(dir, 'log'), '-w', 'start']); };
  const stop = () => { pgctl(['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']); };
  // The postmaster's pid is the first line of postmaster.pid; its children are the backends.
  const clusterPids = (): number[] => {
    const postmaster = readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    let children: string[] = [];
    try {
      children = execFileSync('pgrep', ['-P', postmaster]).toString().split('\n').filter(Boolean);
    } catch { /* no children */ }
    return [postmaster, ...children].map(Number);
  };
  start();
  const api: TestPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    restart: () => { pgctl(['-D', join(dir, 'data'), '-o', opts, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']); },
    stopImmediate: () => { pgctl(['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']); },
    freeze(on) {
      for (const pid of clusterPids()) {
        try { process.kill(pid, on ? 'SIGSTOP' : 'SIGCONT'); } catch { /* exited meanwhile */ }
      }
    },
    destroy() {
      try { api.freeze(false); } catch { /* not running */ }
      try { stop(); } catch { /* already stopped */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return api;
}
