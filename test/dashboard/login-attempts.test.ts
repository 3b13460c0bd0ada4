// A pending sign-in travels sealed in its own cookie: nobody else's /auth/login can evict it, a
// callback spends it once (on whichever instance it lands, when they share the secret and the
// revocations), and a cookie these keys did not seal opens nothing.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DashboardSessions, LOGIN_COOKIE } from '../../src/dashboard/sessions.js';
import { MemorySignInRevocations } from '../../src/dashboard/sign-in-revocations.js';

const callback = (cookie: string) => ({ headers: { cookie: `${LOGIN_COOKIE}=${cookie}` } }) as unknown as IncomingMessage;
const attempt = (n: number) => ({ state: `state-${n}`, nonce: `nonce-${n}`, codeVerifier: `verifier-${n}` });
const SECRET = 'a-shared-dashboard-secret-4f9c2e7b1d';

describe('pending sign-ins', () => {
  it('an anonymous login flood does not evict a pending sign-in', async () => {
    const sessions = new DashboardSessions();
    const carol = sessions.startLogin(attempt(0));
    for (let i = 1; i <= 10_001; i++) sessions.startLogin(attempt(i));
    expect(await sessions.takeLogin(callback(carol))).toMatchObject(attempt(0));
  });

  it('is single use, expires, and a cookie it did not seal (altered, or another process\'s) opens nothing', async () => {
    let now = 1_000_000;
    const sessions = new DashboardSessions({ now: () => now });
    const cookie = sessions.startLogin(attempt(1));
    expect(await sessions.takeLogin(callback(cookie))).toMatchObject(attempt(1));
    expect(await sessions.takeLogin(callback(cookie))).toBeUndefined();

    const late = sessions.startLogin(attempt(2));
    now += 11 * 60_000;
    expect(await sessions.takeLogin(callback(late))).toBeUndefined();

    const fresh = sessions.startLogin(attempt(3));
    // A character in the middle: every bit of it counts (the last one of a base64url string may
    // carry only padding bits, so changing it need not change the bytes).
    const at = fresh.slice(fresh.length >> 1).search(/[A-Za-z0-9]/) + (fresh.length >> 1);
    const flipped = `${fresh.slice(0, at)}${fresh[at] === 'A' ? 'B' : 'A'}${fresh.slice(at + 1)}`;
    expect(await sessions.takeLogin(callback(flipped))).toBeUndefined();
    expect(await new DashboardSessions({ now: () => now }).takeLogin(callback(fresh))).toBeUndefined();
    expect(await sessions.takeLogin(callback(fresh))).toMatchObject(attempt(3));
  });

  it('two instances with one secret and one revocation list: started on one, finished on the other, once', async () => {
    const revocations = new MemorySignInRevocations();
    const a = new DashboardSessions({ secret: SECRET, clientId: 'dash', revocations });
    const b = new DashboardSessions({ secret: SECRET, clientId: 'dash', revocations });
    const cookie = a.startLogin(attempt(4));
    expect(await b.takeLogin(callback(cookie))).toMatchObject(attempt(4));
    expect(await a.takeLogin(callback(cookie))).toBeUndefined();
    // Another client id (another dashboard with the same secret) derives other keys.
    const other = new DashboardSessions({ secret: SECRET, clientId: 'another-dash', revocations: new MemorySignInRevocations() });
    expect(await other.takeLogin(callback(a.startLogin(attempt(5))))).toBeUndefined();
  });

  it('the cookie shows none of what it carries', () => {
    const cookie = new DashboardSessions({ secret: SECRET }).startLogin(attempt(6));
    const raw = Buffer.from(cookie, 'base64url').toString('latin1');
    for (const part of ['state-6', 'nonce-6', 'verifier-6']) expect(raw).not.toContain(part);
  });
});
