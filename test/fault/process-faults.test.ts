// Fault rows that need a real process: a full disk under the audit log (the kernel's file-size
// limit, `ulimit -f`, cuts writes short exactly as ENOSPC would), and `kill -9` in the middle of
// changes followed by a restart on the same state folder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { verifyAuditFiles } from '../../src/commands/audit-verify/verify.js';
import { readCallResult, tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

async function serve(dir: string, ulimitKb?: number): Promise<{ client: Client; transport: StdioClientTransport }> {
  const script = ulimitKb ? `ulimit -f ${ulimitKb} && exec "$0" "$@"` : 'exec "$0" "$@"';
  const transport = new StdioClientTransport({
    command: 'bash', args: ['-c', script, process.execPath, BIN, '--lab'], cwd: dir, stderr: 'ignore',
    env: { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: join(dir, 'audit.jsonl'), ENABLE_DESTRUCTIVE: 'true', LOG_LEVEL: 'error', TOOLSETS: 'all' },
  });
  const client = new Client({ name: 'fault-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: Record<string, unknown> }> {
  return readCallResult(await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }));
}

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('process fault rows', () => {
  it('a full disk under the audit log: changes fail closed with audit_failed, every line on disk is whole', async () => {
    const dir = tempDir('zr-full-');
    const { client } = await serve(dir, 24);
    let refused: Record<string, unknown> | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await call(client, 'lab_write_guest_file', { vm: 'web-01', path: `/etc/fill-${i}.conf`, content: 'x'.repeat(1500), change_id: `fill-${i}` });
      if (r.isError && (r.data.error as { code: string }).code === 'audit_failed') {
        refused = r.data.error as Record<string, unknown>;
        // The refused write never reached the guest: its executing line could not be written.
        const read = await call(client, 'lab_read_guest_file', { vm: 'web-01', path: `/etc/fill-${i}.conf` });
        expect(read.data.exists).toBe(false);
      }
    }
    expect(refused, 'the audit log filled up').toBeDefined();
    expect(String(refused!.message)).toMatch(/not made/);
    await client.close();
    const path = join(dir, 'audit.jsonl');
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(() => lines(path)).not.toThrow();
    expect((await verifyAuditFiles([path])).ok).toBe(true);
  }, 120_000);

  it('kill -9 mid-change, then a restart: the audit verifies and nothing stays open', async () => {
    const dir = tempDir('zr-kill-');
    const path = join(dir, 'audit.jsonl');
    const first = await serve(dir);
    const inflight = [
      ...Array.from({ length: 8 }, (_, i) => call(first.client, 'lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: `v${i}`, change_id: `k-${i}` })),
      call(first.client, 'delete_vm', { target: 'lab-vc1', vm: 'test-01' }),
      call(first.client, 'power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }),
    ].map((p) => p.catch(() => undefined));
    await Promise.race(inflight);
    await new Promise((r) => setTimeout(r, 150));
    process.kill(first.transport.pid!, 'SIGKILL');
    await Promise.all(inflight);
    await first.client.close().catch(() => undefined);

    const second = await serve(dir);
    expect((await call(second.client, 'list_targets', {})).isError).toBe(false);
    await second.client.close();

    const report = await verifyAuditFiles([path]);
    expect(report.ok, JSON.stringify(report.problem)).toBe(true);
    const all = lines(path);
    expect(all.filter((l) => l.phase === 'startup')).toHaveLength(2);
    for (const ex of all.filter((l) => l.phase === 'executing')) {
      expect(all.some((l) => l.id === ex.id && (l.phase === 'executed' || l.phase === 'failed')), `outcome of ${String(ex.id)}`).toBe(true);
    }
    for (const p of all.filter((l) => l.phase === 'proposed')) {
      expect(all.some((l) => l.proposal_id === p.proposal_id && l.phase !== 'proposed'), `close of ${String(p.proposal_id)}`).toBe(true);
    }
  }, 120_000);
});
