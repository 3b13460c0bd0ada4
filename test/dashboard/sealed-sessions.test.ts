// A signed-in dashboard session travels sealed in its cookie, so no instance has to remember it:
// another instance with the same secret opens it, a sign-out recorded in the shared revocations
// ends it everywhere, it renews while used and ends when idle or too old, and the browser can
// neither read nor change the identity inside.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DashboardSessions, SESSION_COOKIE, SessionTooLarge } from '../../src/dashboard/sessions.js';
import { MemorySignInRevocations } from '../../src/dashboard/sign-in-revocations.js';
import type { Principal } from '../../src/core/principal.js';

const SECRET = 'a-shared-dashboard-secret-4f9c2e7b1d';
const bob: Principal = { identity: 'user:bob', subject: 'bob', groups: ['ops-approvers'], scopes: ['vsphere:read', 'vsphere:change'], kind: 'user' };
const request = (cookie: string) => ({ headers: { cookie: `${SESSION_COOKIE}=${cookie}` } }) as unknown as IncomingMessage;

function pair(now: () => number = Date.now) {
  const revocations = new MemorySignInRevocations(now);
  return {
    a: new DashboardSessions({ secret: SECRET, clientId: 'dash', revocations, now }),
    b: new DashboardSessions({ secret: SECRET, clientId: 'dash', revocations, now }),
  };
}

describe('sealed dashboard sessions', () => {
  it('signed in on one instance, honoured by the other; a sign-out on either ends it on both', async () => {
    const { a, b } = pair();
    const cookie = a.create(bob, 'Bob Builder');
    expect((await b.lookup(request(cookie)))?.session).toMatchObject({ principal: bob, name: 'Bob Builder' });
    expect((await b.end(request(cookie)))?.principal.identity).toBe('user:bob');
    expect(await a.lookup(request(cookie))).toBeUndefined();
    expect(await b.lookup(request(cookie))).toBeUndefined();
    // Signing out again finds nothing to end (and records nothing twice).
    expect(await a.end(request(cookie))).toBeUndefined();
  });

  it('keys of this process only (no secret): another instance opens nothing, even with the same revocations', async () => {
    const revocations = new MemorySignInRevocations();
    const cookie = new DashboardSessions({ revocations }).create(bob, 'Bob');
    expect(await new DashboardSessions({ revocations }).lookup(request(cookie))).toBeUndefined();
    expect(new DashboardSessions().sharedAcrossInstances).toBe(false);
    expect(new DashboardSessions({ secret: SECRET }).sharedAcrossInstances).toBe(true);
  });

  it('a forged, altered or login cookie opens nothing', async () => {
    const { a } = pair();
    const cookie = a.create(bob, 'Bob');
    const altered = `${cookie.slice(0, -2)}${cookie.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const forged of ['forged-by-hand', altered, '', a.startLogin({ state: 's', nonce: 'n', codeVerifier: 'v' })]) {
      expect(await a.lookup(request(forged)), forged.slice(0, 20)).toBeUndefined();
    }
  });

  it('the browser reads nothing of the identity: not the subject, groups, scopes or name', () => {
    const { a } = pair();
    const raw = Buffer.from(a.create(bob, 'Bob Builder'), 'base64url').toString('latin1');
    for (const part of ['bob', 'ops-approvers', 'vsphere', 'Builder', 'user:']) expect(raw).not.toContain(part);
  });

  it('renews while in use, ends after 30 idle minutes and after 8 hours whatever happens', async () => {
    let now = 5_000_000;
    const { a, b } = pair(() => now);
    let cookie = a.create(bob, 'Bob');
    const created = now;
    now += 30_000;
    // Within a minute of the last renewal: no new cookie.
    expect((await b.lookup(request(cookie)))?.renewed).toBeUndefined();
    // Keep using it every 20 minutes: each use renews it, so it stays alive past the idle limit.
    for (let i = 0; i < 30; i++) {
      now += 20 * 60_000;
      const found = await (i % 2 ? a : b).lookup(request(cookie));
      if (now - created >= 8 * 60 * 60_000) {
        expect(found, `at ${(now - created) / 60_000} min`).toBeUndefined();
        break;
      }
      expect(found?.renewed, `at ${(now - created) / 60_000} min`).toBeDefined();
      expect(found!.renewed!.maxAgeSeconds).toBe(Math.ceil((created + 8 * 60 * 60_000 - now) / 1000));
      cookie = found!.renewed!.value;
    }
    expect(now - created).toBeGreaterThanOrEqual(8 * 60 * 60_000);

    const idle = a.create(bob, 'Bob');
    now += 29 * 60_000;
    const renewed = (await a.lookup(request(idle)))!.renewed!.value;
    now += 30 * 60_000;
    expect(await a.lookup(request(renewed))).toBeUndefined();
    // The old value was never renewed: it went idle even earlier.
    expect(await a.lookup(request(idle))).toBeUndefined();
  });

  it('refuses an identity too large for a cookie instead of handing out one the browser drops', () => {
    const { a } = pair();
    const groups = Array.from({ length: 400 }, (_, i) => `group-with-a-long-name-${i}`);
    expect(() => a.create({ ...bob, groups }, 'Bob')).toThrow(SessionTooLarge);
  });

  it('a revocation list that cannot be reached lets nobody in (fail closed)', async () => {
    const broken = { spend: () => Promise.reject(new Error('ECONNREFUSED')), isSpent: () => Promise.reject(new Error('ECONNREFUSED')) };
    const sessions = new DashboardSessions({ secret: SECRET, revocations: broken });
    const cookie = sessions.create(bob, 'Bob');
    await expect(sessions.lookup(request(cookie))).rejects.toThrow('ECONNREFUSED');
    await expect(sessions.end(request(cookie))).rejects.toThrow('ECONNREFUSED');
  });
});
