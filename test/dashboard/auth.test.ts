// Token gating: every route (page, assets, API, even unknown paths) answers 401 without the token,
// accepts each of the three forms, and never writes the token into the logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertDashboardConfig, startDashboard } from '../../src/dashboard/server.js';
import { TOKEN, recordingLogger, startHarness, writeHeaders, type Harness } from './harness.js';
import { seededPorts } from './fake-ports.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const ROUTES: Array<{ method: 'GET' | 'POST'; path: string }> = [
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/index.html' },
  { method: 'GET', path: '/assets/app.js' },
  { method: 'GET', path: '/assets/app.css' },
  { method: 'GET', path: '/assets/pending.js' },
  { method: 'GET', path: '/api/proposals' },
  { method: 'POST', path: '/api/proposals/prop-1/confirm' },
  { method: 'POST', path: '/api/proposals/prop-2/cancel' },
  { method: 'GET', path: '/api/targets' },
  { method: 'GET', path: '/api/inventory?kind=vms&target=all' },
  { method: 'GET', path: '/api/audit?limit=5' },
  { method: 'GET', path: '/api/no-such-route' },
  { method: 'GET', path: '/no-such-page' },
];

type TokenForm = 'header' | 'bearer' | 'query';

function request(method: string, path: string, form: TokenForm | 'none', token = TOKEN, extra: Record<string, string> = {}): Promise<Response> {
  const headers: Record<string, string> = method === 'POST' ? writeHeaders(h.base) : {};
  delete headers['X-Auth-Token'];
  let url = h.base + path;
  if (form === 'header') headers['X-Auth-Token'] = token;
  if (form === 'bearer') headers['Authorization'] = `Bearer ${token}`;
  if (form === 'query') url += `${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  return fetch(url, { method, headers: { ...headers, ...extra }, body: method === 'POST' ? '{}' : undefined });
}

describe('token gating', () => {
  it.each(ROUTES)('$method $path: 401 without a token, with no detail', async ({ method, path }) => {
    const res = await request(method, path, 'none');
    expect(res.status).toBe(401);
    expect(await res.text()).toBe('Unauthorized');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it.each(ROUTES)('$method $path: 401 for a wrong token in every form', async ({ method, path }) => {
    for (const form of ['header', 'bearer', 'query'] as const) {
      const res = await request(method, path, form, 'wrong-token-0123456789');
      expect(res.status, form).toBe(401);
      // A prefix of the real token, and the token with one character changed, are just as wrong.
      const near = await request(method, path, form, TOKEN.slice(0, -1) + 'X');
      expect(near.status, form).toBe(401);
    }
  });

  it.each(ROUTES.filter((r) => r.method === 'GET'))('$method $path: each token form is accepted', async ({ method, path }) => {
    for (const form of ['header', 'bearer', 'query'] as const) {
      const res = await request(method, path, form);
      expect(res.status, form).not.toBe(401);
    }
  });

  it('writes are accepted with each token form (once each, since a decision is final)', async () => {
    const ids = ['prop-1', 'prop-2', 'prop-3'];
    const forms = ['header', 'bearer', 'query'] as const;
    for (const [i, form] of forms.entries()) {
      const res = await request('POST', `/api/proposals/${ids[i]}/cancel`, form);
      expect(res.status, form).toBe(200);
      expect(await res.json()).toEqual({ state: 'cancelled' });
    }
    expect(h.fake.decisions.map((d) => d.id)).toEqual(ids);
    h.fake.decisions.length = 0;
  });

  it('never logs the token, not even a wrong one from the query string', async () => {
    await request('GET', '/api/proposals', 'query');
    await request('GET', '/api/proposals', 'query', 'guess-abcdefghijklmnop');
    const text = JSON.stringify(h.logs);
    expect(h.logs.some((l) => l.msg.includes('unauthenticated'))).toBe(true);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('guess-abcdefghijklmnop');
  });
});

describe('asset cookie', () => {
  async function pageCookie(): Promise<string> {
    const res = await request('GET', '/', 'query');
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(TOKEN);
    return cookie.split(';')[0] as string;
  }

  it('opens the page and its static files after an authenticated page load', async () => {
    const cookie = await pageCookie();
    for (const path of ['/', '/assets/app.js', '/assets/app.css']) {
      const res = await fetch(h.base + path, { headers: { Cookie: cookie } });
      expect(res.status, path).toBe(200);
    }
  });

  it('never opens the JSON API', async () => {
    const cookie = await pageCookie();
    expect((await fetch(`${h.base}/api/proposals`, { headers: { Cookie: cookie } })).status).toBe(401);
    const post = await fetch(`${h.base}/api/proposals/prop-1/confirm`, {
      method: 'POST',
      headers: { ...writeHeaders(h.base), 'X-Auth-Token': '', Cookie: cookie },
      body: '{}',
    });
    expect(post.status).toBe(401);
    expect(h.fake.decisions).toEqual([]);
  });

  it('does not rescue a wrong token, and a forged cookie is refused', async () => {
    const cookie = await pageCookie();
    const res = await fetch(`${h.base}/assets/app.js`, { headers: { Cookie: cookie, 'X-Auth-Token': 'nope-nope-nope-nope' } });
    expect(res.status).toBe(401);
    const forged = await fetch(`${h.base}/assets/app.js`, { headers: { Cookie: `${cookie.split('=')[0]}=${TOKEN}` } });
    expect(forged.status).toBe(401);
  });
});

describe('assertDashboardConfig', () => {
  it('refuses an enabled dashboard without a token', () => {
    expect(() => assertDashboardConfig({ enabled: true })).toThrow(/WEB_UI_TOKEN is not set/);
    expect(() => assertDashboardConfig({ enabled: true, token: '   ' })).toThrow(/WEB_UI_TOKEN is not set/);
    const err = thrownBy(() => assertDashboardConfig({ enabled: true, token: '' }));
    expect(err).toMatchObject({ code: 'config_invalid', hint: expect.stringMatching(/openssl rand/) });
  });

  it('refuses a short token and accepts a disabled dashboard without one', () => {
    expect(() => assertDashboardConfig({ enabled: true, token: 'short' })).toThrow(/too short/);
    expect(() => assertDashboardConfig({ enabled: false })).not.toThrow();
    expect(() => assertDashboardConfig({ enabled: true, token: TOKEN })).not.toThrow();
  });

  it('startDashboard itself refuses to start without a token', async () => {
    await expect(startDashboard({ port: 0, token: '', ports: seededPorts(), logger: recordingLogger([]) })).rejects.toThrow(/WEB_UI_TOKEN/);
  });
});

function thrownBy(fn: () => void): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}
