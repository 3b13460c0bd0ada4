// The JSON API over the in-memory ports: what the page reads, and confirm/cancel reaching the ports
// with the approver identity (client address plus the typed name).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN, startHarness, writeHeaders, type Harness } from './harness.js';
import { XSS_NAME } from './fake-ports.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const get = async (path: string): Promise<{ status: number; body: any }> => {
  const res = await fetch(h.base + path, { headers: { 'X-Auth-Token': TOKEN } });
  return { status: res.status, body: await res.json() };
};
const post = async (path: string, body: unknown): Promise<{ status: number; body: any }> => {
  const res = await fetch(h.base + path, { method: 'POST', headers: writeHeaders(h.base), body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};

describe('GET /api/proposals', () => {
  it('lists proposals with target, gating and the server clock', async () => {
    const { status, body } = await get('/api/proposals');
    expect(status).toBe(200);
    expect(Math.abs(Date.parse(body.now) - Date.now())).toBeLessThan(5000);
    expect(body.proposals).toHaveLength(3);
    const del = body.proposals.find((p: any) => p.tool === 'delete_vm');
    expect(del).toMatchObject({ state: 'pending', target: { name: 'prod-vc1', host: 'vcenter-prod1.example.com' }, requires_web_approval: true });
    expect(JSON.stringify(body)).not.toMatch(/token/i);
  });
});

describe('confirm and cancel', () => {
  it('confirm approves and executes, with the address and typed name as approver', async () => {
    const { status, body } = await post('/api/proposals/prop-1/confirm', { name: '  Alice   Admin ' });
    expect(status).toBe(200);
    expect(body.state).toBe('executed');
    expect(body.result).toMatchObject({ target: 'prod-vc1', affected: ['vm-101'] });
    expect(h.fake.decisions).toEqual([{ op: 'confirm', id: 'prop-1', approver: 'web-ui@127.0.0.1 (Alice Admin)' }]);
    expect(h.fake.proposals.get('prop-1')?.decided_by).toBe('web-ui@127.0.0.1 (Alice Admin)');
  });

  it('collapses whitespace (including newlines) in the typed name', async () => {
    await post('/api/proposals/prop-1/cancel', { name: 'Carol\n  Ops' });
    expect(h.fake.decisions[0]?.approver).toBe('web-ui@127.0.0.1 (Carol Ops)');
  });

  it('without a name the approver is the client address alone', async () => {
    const { body } = await post('/api/proposals/prop-2/cancel', {});
    expect(body).toEqual({ state: 'cancelled' });
    expect(h.fake.decisions).toEqual([{ op: 'cancel', id: 'prop-2', approver: 'web-ui@127.0.0.1' }]);
  });

  it('an empty body counts as no name', async () => {
    const res = await fetch(`${h.base}/api/proposals/prop-2/cancel`, { method: 'POST', headers: writeHeaders(h.base) });
    expect(res.status).toBe(200);
    expect(h.fake.decisions[0]?.approver).toBe('web-ui@127.0.0.1');
  });

  it('a failed execution is reported as failed with its error', async () => {
    h.fake.failingTools.add('delete_vm');
    const { status, body } = await post('/api/proposals/prop-1/confirm', {});
    expect(status).toBe(200);
    expect(body).toMatchObject({ state: 'failed', error: { code: 'task_failed' } });
  });

  it('refuses names that could forge a second identity, before reaching the port', async () => {
    // U+202E (right-to-left override) would make the audit line read differently than it is.
    for (const name of ['alice) (approved-by: ceo', 'a\u202eb', 'nul\u0000', 'x'.repeat(65), 42]) {
      const { status, body } = await post('/api/proposals/prop-1/confirm', { name });
      expect(status, String(name)).toBe(400);
      expect(body.error.code).toBe('invalid_input');
    }
    expect(h.fake.decisions).toEqual([]);
    expect(h.fake.proposals.get('prop-1')?.state).toBe('pending');
  });

  it('maps port errors: unknown id 404, already decided 409, expired 409', async () => {
    expect((await post('/api/proposals/nope/confirm', {})).status).toBe(404);
    await post('/api/proposals/prop-1/cancel', {});
    const again = await post('/api/proposals/prop-1/confirm', {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('confirmation_invalid');
    const p = h.fake.proposals.get('prop-2');
    if (p) p.expires_at = new Date(Date.now() - 1000).toISOString();
    const expired = await post('/api/proposals/prop-2/confirm', {});
    expect(expired).toMatchObject({ status: 409, body: { error: { code: 'confirmation_expired' } } });
  });

  it('rejects malformed bodies, wrong methods and odd ids', async () => {
    const bad = await fetch(`${h.base}/api/proposals/prop-1/confirm`, { method: 'POST', headers: writeHeaders(h.base), body: '{nope' });
    expect(bad.status).toBe(400);
    const arr = await fetch(`${h.base}/api/proposals/prop-1/confirm`, { method: 'POST', headers: writeHeaders(h.base), body: '[]' });
    expect(arr.status).toBe(400);
    const huge = await fetch(`${h.base}/api/proposals/prop-1/confirm`, {
      method: 'POST',
      headers: writeHeaders(h.base),
      body: JSON.stringify({ name: 'a', pad: 'x'.repeat(10_000) }),
    });
    expect(huge.status).toBe(413);
    const viaGet = await fetch(`${h.base}/api/proposals/prop-1/confirm`, { headers: { 'X-Auth-Token': TOKEN } });
    expect(viaGet.status).toBe(405);
    expect((await post('/api/proposals/a%2Fb/confirm', {})).status).toBe(404);
    expect(h.fake.decisions).toEqual([]);
  });

  it('offers no way to create or edit anything', async () => {
    for (const [method, path] of [
      ['POST', '/api/proposals'],
      ['PUT', '/api/proposals/prop-1'],
      ['DELETE', '/api/proposals/prop-1'],
      ['POST', '/api/targets'],
      ['POST', '/api/audit'],
    ] as const) {
      const res = await fetch(h.base + path, { method, headers: writeHeaders(h.base), body: '{}' });
      expect([404, 405], `${method} ${path}`).toContain(res.status);
    }
    expect(h.fake.proposals.size).toBe(3);
  });
});

describe('read views', () => {
  it('targets pass through, including duplicate-instance flags and errors', async () => {
    const { body } = await get('/api/targets');
    expect(body.targets.map((t: any) => t.name)).toEqual(['prod-vc1', 'prod-vc1-alias', 'dr-vc2']);
    expect(body.targets[1].shares_instance_with).toEqual(['prod-vc1']);
    expect(body.targets[2]).toMatchObject({ connected: false, last_error: expect.stringContaining('ECONNREFUSED') });
  });

  it('inventory fans out with per-target errors and carries the target names', async () => {
    const { status, body } = await get('/api/inventory?kind=vms&target=all');
    expect(status).toBe(200);
    expect(body.targets).toEqual(['prod-vc1', 'prod-vc1-alias', 'dr-vc2']);
    expect(body.results[0].ok.items.map((v: any) => v.name)).toContain(XSS_NAME);
    expect(body.results[2].error).toMatchObject({ code: 'unreachable', retryable: true });
    const one = await get('/api/inventory?kind=datastores&target=prod-vc1');
    expect(one.body.results).toHaveLength(1);
    expect(one.body.results[0].ok.items[0].name).toBe('ds-ssd-01');
  });

  it('inventory validates kind and target', async () => {
    expect((await get('/api/inventory?kind=networks')).status).toBe(400);
    expect((await get('/api/inventory?kind=vms&target=nope')).status).toBe(400);
  });

  it('audit passes filters through and clamps the limit', async () => {
    await post('/api/proposals/prop-1/confirm', { name: 'Bob' });
    const { body } = await get('/api/audit?phase=executed&tool=delete_vm&text=Bob');
    expect(body.records).toHaveLength(1);
    expect(body.records[0]).toMatchObject({ phase: 'executed', identity: 'web-ui@127.0.0.1 (Bob)' });
    const limited = await get('/api/audit?limit=2');
    expect(limited.body.records).toHaveLength(2);
    expect((await get('/api/audit?limit=0')).status).toBe(400);
    expect((await get('/api/audit?limit=abc')).status).toBe(400);
    expect((await get(`/api/audit?text=${'x'.repeat(201)}`)).status).toBe(400);
  });
});
