// deploy/: the container image and the systemd unit an admin runs the central server with. No
// container runtime exists where the tests run, so the Containerfile's facts are read from the
// file (its last stage is the image), and its HEALTHCHECK command itself is run against a real
// health route. The unit's facts are read from the file; systemd-analyze checks it as systemd
// would in the `package` project (deploy-verify.test.ts).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { healthRoute } from '../../src/mcp/http/health.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; mcpName: string; license: string };

/** The image's instructions: the last stage, continuation lines joined, comments dropped. */
function finalStage(): Array<{ op: string; args: string }> {
  const text = readFileSync(join(ROOT, 'deploy/Containerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const last = lines.map((l) => l.split(/\s/)[0]!.toUpperCase()).lastIndexOf('FROM');
  return lines.slice(last).map((l) => ({ op: l.split(/\s/)[0]!.toUpperCase(), args: l.slice(l.indexOf(' ') + 1).trim() }));
}
const all = (op: string) => finalStage().filter((i) => i.op === op).map((i) => i.args);

/** `KEY="value" KEY2=value ...` (LABEL and ENV), quotes removed. */
function pairs(args: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) for (const m of a.matchAll(/([\w.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) out[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  return out;
}

describe('deploy/Containerfile (the image)', () => {
  it('runs as a numeric non-root user', () => {
    const users = all('USER');
    expect(users).toHaveLength(1);
    const [uid, gid] = users[0]!.split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    expect(Number(gid ?? uid)).toBeGreaterThan(0);
  });

  it('carries the OCI labels and the MCP Registry server name of package.json', () => {
    const labels = pairs(all('LABEL'));
    expect(labels['io.modelcontextprotocol.server.name']).toBe(pkg.mcpName);
    expect(labels['org.opencontainers.image.licenses']).toBe(pkg.license);
    expect(labels['org.opencontainers.image.version']).toBe('${VERSION}');
    expect(all('ARG')).toContain(`VERSION=${pkg.version}`);
    for (const k of ['title', 'description', 'source', 'url', 'documentation']) expect(labels[`org.opencontainers.image.${k}`]).toBeTruthy();
  });

  it('serves HTTP mode on the exposed port and keeps state, audit and restores on volumes', () => {
    const env = pairs(all('ENV'));
    expect(env.MCP_TRANSPORT).toBe('http');
    expect(all('EXPOSE')).toEqual([env.MCP_HTTP_PORT]);
    expect(JSON.parse(all('CMD')[0]!)).toEqual(['node', 'dist/main.js', '--http']);
    const volumes = JSON.parse(all('VOLUME')[0]!) as string[];
    expect(volumes).toEqual(expect.arrayContaining(['/state', '/restored']));
    expect(env.AUDIT_LOG_PATH!.startsWith('/state/')).toBe(true);
    // The volumes are created for the user the image runs as.
    const uid = all('USER')[0]!.split(':')[0];
    expect(all('RUN').some((r) => r.includes(`chown ${uid}`) && r.includes('/state') && r.includes('/restored'))).toBe(true);
  });

  it('its HEALTHCHECK asks /healthz and exits 0 on a live server, 1 on a dead one', async () => {
    const check = all('HEALTHCHECK')[0]!;
    expect(check).toMatch(/--interval=\d+s/);
    expect(check).toMatch(/--timeout=\d+s/);
    const cmd = JSON.parse(check.slice(check.indexOf('CMD') + 3).trim()) as string[];
    expect(cmd.slice(0, 2)).toEqual(['node', '-e']);
    expect(cmd[2]).toContain('/healthz');

    const route = healthRoute({ checks: [] });
    const server = createServer((req, res) => { if (!route(req, res)) res.writeHead(404).end(); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = String((server.address() as AddressInfo).port);
    // Run as a child, not spawnSync: this process's event loop answers the probe.
    const run = () => new Promise<number | null>((resolve) => {
      spawn(process.execPath, ['-e', cmd[2]!], { env: { MCP_HTTP_PORT: port }, stdio: 'ignore' }).once('exit', resolve);
    });
    try {
      expect(await run()).toBe(0);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(await run()).toBe(1);
  }, 60_000);
});

/** `Key=value` lines of the unit (later lines win, as in systemd for these keys). */
function unit(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(ROOT, 'deploy/zerto-rewind-mcp.service'), 'utf8').split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

describe('deploy/zerto-rewind-mcp.service (systemd)', () => {
  it('raises the descriptor limit far above the 1,024 default', () => {
    expect(Number(unit().LimitNOFILE)).toBeGreaterThanOrEqual(65_536);
  });

  it('runs the HTTP server as its own user, with private files', () => {
    const u = unit();
    expect(u.User).toBe('zerto-rewind');
    expect(u.ExecStart).toMatch(/dist\/main\.js --http$/);
    expect(u.UMask).toBe('0077');
    expect(u.StateDirectoryMode).toBe('0700');
  });

  it('has the hardening an admin expects, and leaves Node\'s JIT working', () => {
    const u = unit();
    for (const key of ['NoNewPrivileges', 'PrivateTmp', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectKernelModules', 'ProtectKernelLogs', 'ProtectControlGroups', 'RestrictNamespaces', 'RestrictSUIDSGID', 'LockPersonality']) {
      expect(u[key], key).toBe('true');
    }
    expect(u.ProtectSystem).toBe('strict');
    expect(u.CapabilityBoundingSet).toBe('');
    expect(u.RestrictAddressFamilies!.split(' ').sort()).toEqual(['AF_INET', 'AF_INET6', 'AF_UNIX']);
    expect(u.MemoryDenyWriteExecute).toBeUndefined();
    expect(u.ReadWritePaths).toBe('/var/lib/zerto-rewind-mcp');
  });
});
