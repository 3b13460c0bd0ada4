// The startup gate between stdin and the MCP transport (src/startup-gate.ts): the handshake goes
// through at once, everything else waits in order until the runtime is up, and a runtime that did
// not start answers every waiting request with the reason.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startupGate } from '../../../src/mcp/stdio/startup-gate.js';

const line = (msg: object): string => `${JSON.stringify(msg)}\n`;
const initialize = line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
const ping = line({ jsonrpc: '2.0', id: 'p', method: 'ping' });
const listTools = line({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
const call = line({ jsonrpc: '2.0', id: 'call-3', method: 'tools/call', params: { name: 'list_targets', arguments: {} } });
const cancelled = line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });

function harness(onDemand?: () => void) {
  const input = new PassThrough();
  const replies: string[] = [];
  const gate = startupGate(input, (l) => replies.push(l), onDemand);
  let out = '';
  let ended = false;
  gate.output.on('data', (d: Buffer) => (out += d.toString()));
  gate.output.on('end', () => (ended = true));
  const settle = () => new Promise((r) => setImmediate(r));
  return { input, gate, replies, out: () => out, ended: () => ended, settle };
}

describe('startup gate', () => {
  it('asks for the runtime at the first message beyond a probe, once; a probe (server/discover, ping) asks for nothing', async () => {
    const discover = line({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: {} });
    let demands = 0;
    const probe = harness(() => demands++);
    expect(probe.gate.heard()).toBe('nothing');
    probe.input.write(discover + ping);
    await probe.settle();
    expect(probe.out()).toBe(discover + ping);
    expect(probe.gate.heard()).toBe('probe');
    expect(demands).toBe(0);
    // A 2026-era client goes on after its discover; its first request asks for the runtime.
    probe.input.write(listTools + call);
    await probe.settle();
    expect(probe.gate.heard()).toBe('client');
    expect(demands).toBe(1);
    // A 2025-era client asks at its initialize.
    let legacyDemands = 0;
    const legacy = harness(() => legacyDemands++);
    legacy.input.write(initialize + initialized + listTools);
    await legacy.settle();
    expect(legacyDemands).toBe(1);
  });

  it('lets the handshake through before the runtime is up and holds tool requests until open, in order', async () => {
    const h = harness();
    h.input.write(initialize + initialized + ping);
    await h.settle();
    expect(h.out()).toBe(initialize + initialized + ping);

    h.input.write(listTools + call);
    await h.settle();
    expect(h.out()).toBe(initialize + initialized + ping);

    h.gate.open();
    await h.settle();
    expect(h.out()).toBe(initialize + initialized + ping + listTools + call);
    expect(h.replies).toEqual([]);
  });

  it('holds a handshake message that comes after a held one, so nothing overtakes', async () => {
    const h = harness();
    h.input.write(initialize + listTools + ping + initialized);
    await h.settle();
    expect(h.out()).toBe(initialize);
    h.gate.open();
    await h.settle();
    expect(h.out()).toBe(initialize + listTools + ping + initialized);
  });

  it('reassembles messages split across chunks, before and after it opens', async () => {
    const h = harness();
    const whole = initialize + listTools + call;
    // One byte at a time: the gate must still see whole lines.
    for (const ch of Buffer.from(whole.slice(0, initialize.length + 7))) h.input.write(Buffer.from([ch]));
    await h.settle();
    expect(h.out()).toBe(initialize);
    h.gate.open();
    h.input.write(whole.slice(initialize.length + 7));
    await h.settle();
    expect(h.out()).toBe(whole);
  });

  it('passes everything through unchanged once open', async () => {
    const h = harness();
    h.gate.open();
    h.input.write(listTools);
    h.input.write('not json at all\n');
    await h.settle();
    expect(h.out()).toBe(`${listTools}not json at all\n`);
  });

  it('answers every held request with the reason the runtime did not start, and drops held notifications', async () => {
    const h = harness();
    h.input.write(initialize + initialized + listTools + cancelled + call);
    await h.settle();
    h.gate.fail('audit log /x is not writable: EACCES. Set AUDIT_LOG_PATH to a writable file.');
    h.input.write(line({ jsonrpc: '2.0', id: 9, method: 'tools/list' }));
    await h.settle();
    expect(h.out()).toBe(initialize + initialized);
    const answers = h.replies.map((r) => JSON.parse(r) as { id: unknown; error: { code: number; message: string } });
    expect(answers.map((a) => a.id)).toEqual([2, 'call-3', 9]);
    for (const a of answers) {
      expect(a.error.code).toBe(-32603);
      expect(a.error.message).toBe('zerto-rewind-mcp did not start: audit log /x is not writable: EACCES. Set AUDIT_LOG_PATH to a writable file.');
    }
  });

  it('keeps the end of input until it is decided, so held messages are not lost', async () => {
    const h = harness();
    h.input.end(initialize + listTools);
    await h.settle();
    expect(h.ended()).toBe(false);
    h.gate.open();
    await h.settle();
    expect(h.out()).toBe(initialize + listTools);
    expect(h.ended()).toBe(true);
  });
});
