// Error shapes a generic MCP client can act on, through a real MCP Client against the lab: a
// fan-out read that failed on every addressed target is isError (detail kept), an unknown tool is
// the JSON-RPC error -32602, unknown arguments are refused by name with the closest valid one,
// and (through the spawned binary) a call in flight when stdin closes still gets its answer.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { startHarness, tempDir } from '../support/harness.js';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

describe('exact errors through a real client', () => {
  let h: LabHarness;
  beforeAll(async () => { h = await startLabHarness(); }, 60_000);
  afterAll(() => h?.close());

  it('a read whose every addressed target failed is isError, with the per-target detail unchanged', async () => {
    const one = await h.call('get_vm_details', { target: 'lab-vc1', vm: 'no-such-vm' });
    expect(one.isError).toBe(true);
    expect(one.data).toMatchObject({ results: [{ target: 'lab-vc1', error: { code: 'not_found' } }] });
    const both = await h.call('get_vm_details', { vm: 'no-such-vm' });
    expect(both.isError).toBe(true);
    expect((both.data.results as unknown[]).length).toBe(2);
  });

  it('a read that succeeded on one target of two is not an error', async () => {
    const r = await h.call('get_vm_details', { vm: 'erp-01' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ results: [{ target: 'lab-vc1', error: { code: 'not_found' } }, { target: 'lab-vc2', ok: { moid: 'vm-201' } }] });
  });

  it('an unknown tool is JSON-RPC error -32602 naming it and pointing at tools/list, with no ENABLE_DESTRUCTIVE hint in the lab', async () => {
    const err = await h.client.callTool({ name: 'delete_vmm', arguments: {} }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe(-32602);
    expect((err as ProtocolError).message).toContain("Unknown tool 'delete_vmm'");
    expect((err as ProtocolError).message).toContain('tools/list');
    expect((err as ProtocolError).message).toContain("Did you mean 'delete_vm'?");
    expect((err as ProtocolError).message).not.toContain('ENABLE_DESTRUCTIVE');
  });

  it('unknown arguments are invalid_input naming each one and the closest valid name, and nothing runs', async () => {
    const before = h.auditLines().length;
    const r = await h.call('get_vm_details', { target: 'lab-vc1', vm_name: 'app-01', trget: 'x' });
    expect(r.isError).toBe(true);
    const error = (r.data as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(`"vm_name" (did you mean 'vm'?)`);
    expect(error.message).toContain(`"trget" (did you mean 'target'?)`);
    expect(error.hint).toContain("'vm'");
    const audited = h.auditLines().slice(before);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ tool: 'get_vm_details', phase: 'failed' });
  });
});

describe('the reason a declared tool is not served', () => {
  it('names the missing Zerto site rather than a toolset when the tool is selected', async () => {
    const h = await startHarness({ tools: ALL_TOOLS });
    try {
      await expect(h.client.callTool({ name: 'zerto_find_protection', arguments: { vm: 'x' } })).rejects.toMatchObject({
        code: -32602, message: expect.stringContaining('needs what it works on configured (a vSphere target or a Zerto site)'),
      });
    } finally {
      await h.close();
    }
  });
});

describe('stdin closing while a call runs', () => {
  it('answers the call before the process exits', async () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_vms', arguments: { target: 'all' } } },
    ];
    const env = { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: `${tempDir('zr-inflight-')}/audit.jsonl` };
    const child = spawn(process.execPath, [BIN, '--lab'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    // Wait until the server is up (the initialize answer), then send the call and close stdin at once.
    child.stdin.write(`${JSON.stringify(lines[0])}\n`);
    await new Promise<void>((r) => { const tick = () => (stdout.includes('"id":1') ? r() : setTimeout(tick, 20)); tick(); });
    child.stdin.end(`${JSON.stringify(lines[1])}\n${JSON.stringify(lines[2])}\n`);
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    const answer = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: { structuredContent?: { results?: unknown[] } } }).find((m) => m.id === 7);
    expect(answer?.result?.structuredContent?.results).toHaveLength(2);
    expect(code).toBe(0);
  }, 60_000);
});
