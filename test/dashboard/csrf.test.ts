// Cross-site protection on the only writes: even with a valid token, a request a foreign page could
// make (form post, simple fetch, other origin) must not reach confirm/cancel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, writeHeaders, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function confirmWith(headers: Record<string, string>, body = '{}'): Promise<Response> {
  return fetch(`${h.base}/api/proposals/prop-1/confirm`, { method: 'POST', headers, body });
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

describe('cross-site writes are refused', () => {
  const cases: Array<[string, () => Record<string, string>]> = [
    ['form-encoded content type', () => writeHeaders(h.base, { 'Content-Type': 'application/x-www-form-urlencoded' })],
    ['text/plain content type', () => writeHeaders(h.base, { 'Content-Type': 'text/plain' })],
    ['multipart content type', () => writeHeaders(h.base, { 'Content-Type': 'multipart/form-data; boundary=x' })],
    ['no content type', () => without(writeHeaders(h.base), 'Content-Type')],
    ['missing X-Requested-With', () => without(writeHeaders(h.base), 'X-Requested-With')],
    ['wrong X-Requested-With', () => writeHeaders(h.base, { 'X-Requested-With': 'XMLHttpRequest' })],
    ['cross-site Origin', () => writeHeaders(h.base, { Origin: 'http://evil.example' })],
    ['same host, other port', () => writeHeaders(h.base, { Origin: 'http://127.0.0.1:1' })],
    ['Origin null', () => writeHeaders(h.base, { Origin: 'null' })],
    ['Sec-Fetch-Site cross-site', () => writeHeaders(h.base, { 'Sec-Fetch-Site': 'cross-site' })],
    ['Sec-Fetch-Site same-site', () => writeHeaders(h.base, { 'Sec-Fetch-Site': 'same-site' })],
  ];

  it.each(cases)('%s: 403 and the port is not called', async (_label, headers) => {
    const res = await confirmWith(headers());
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    expect(h.fake.decisions).toEqual([]);
    expect(h.fake.proposals.get('prop-1')?.state).toBe('pending');
  });

  it('logs the refusal with its reason', () => {
    const refusals = h.logs.filter((l) => l.msg.includes('cross-site'));
    expect(refusals.length).toBe(cases.length);
    expect(refusals.map((l) => (l.obj as { reason: string }).reason)).toContain('Origin is not this dashboard');
  });
});

describe('same-origin writes proceed', () => {
  it('without Origin or Sec-Fetch-Site (non-browser clients send neither)', async () => {
    const headers = without(without(writeHeaders(h.base), 'Origin'), 'Sec-Fetch-Site');
    const res = await fetch(`${h.base}/api/proposals/prop-3/cancel`, { method: 'POST', headers, body: '{}' });
    expect(res.status).toBe(200);
  });

  it('with a same-origin Origin and a charset on the content type', async () => {
    const res = await confirmWith(writeHeaders(h.base, { 'Content-Type': 'application/json; charset=utf-8' }));
    expect(res.status).toBe(200);
    expect(h.fake.proposals.get('prop-1')?.state).toBe('executed');
  });
});
