// A pending sign-in travels sealed in its own cookie: nobody else's /auth/login can evict it, a
// callback spends it once, and a cookie this process did not seal opens nothing.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DashboardSessions, LOGIN_COOKIE } from '../../src/dashboard/sessions.js';

const callback = (cookie: string) => ({ headers: { cookie: `${LOGIN_COOKIE}=${cookie}` } }) as unknown as IncomingMessage;
const attempt = (n: number) => ({ state: `state-${n}`, nonce: `nonce-${n}`, codeVerifier: `verifier-${n}` });

describe('pending sign-ins', () => {
  it('an anonymous login flood does not evict a pending sign-in', () => {
    const sessions = new DashboardSessions();
    const carol = sessions.startLogin(attempt(0));
    for (let i = 1; i <= 10_001; i++) sessions.startLogin(attempt(i));
    expect(sessions.takeLogin(callback(carol))).toMatchObject(attempt(0));
  });

  it('is single use, expires, and a cookie it did not seal (altered, or another process\'s) opens nothing', () => {
    let now = 1_000_000;
    const sessions = new DashboardSessions(() => now);
    const cookie = sessions.startLogin(attempt(1));
    expect(sessions.takeLogin(callback(cookie))).toMatchObject(attempt(1));
    expect(sessions.takeLogin(callback(cookie))).toBeUndefined();

    const late = sessions.startLogin(attempt(2));
    now += 11 * 60_000;
    expect(sessions.takeLogin(callback(late))).toBeUndefined();

    const fresh = sessions.startLogin(attempt(3));
    const flipped = `${fresh.slice(0, -2)}${fresh.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(sessions.takeLogin(callback(flipped))).toBeUndefined();
    expect(new DashboardSessions(() => now).takeLogin(callback(fresh))).toBeUndefined();
    expect(sessions.takeLogin(callback(fresh))).toMatchObject(attempt(3));
  });
});
