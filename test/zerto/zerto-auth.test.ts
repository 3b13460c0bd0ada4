import { afterEach, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS } from '../../src/lab/topology.js';
import { CLIENT_SECRET, startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const TOKEN = 'POST /auth/realms/zerto/protocol/openid-connect/token';
let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

function principals(l: LabHandle): string[] {
  return [...l.zvm.state.tokens.values()].map((t) => t.principal);
}

describe('Keycloak token lifecycle', () => {
  it('logs in with the password grant when USER and PASSWORD are set', async () => {
    lab = await startLab();
    expect((await lab.client.localSite()).SiteName).toBe('lab-zvm');
    expect(principals(lab)).toEqual([LAB_CREDENTIALS.user]);
  });

  it('uses client_credentials when CLIENT_SECRET is set, with the configured client id', async () => {
    lab = await startLab();
    const c = lab.newClient({ LAB_ZVM_CLIENT_SECRET: CLIENT_SECRET }, { clientId: 'rewind-tool' });
    expect((await c.listVpgs()).length).toBeGreaterThan(0);
    expect(principals(lab)).toEqual(['service-account-rewind-tool']);
  });

  it('says which variables to set when no credentials are present', async () => {
    lab = await startLab();
    const err = await thrown(() => lab!.newClient({}).localSite());
    expect(err.code).toBe('auth_failed');
    expect(err.message).toContain('LAB_ZVM_USER');
    expect(err.message).toContain('LAB_ZVM_CLIENT_SECRET');
    expect(lab.callLog.find('zvm:lab-zvm', TOKEN)).toHaveLength(0);
  });

  it('reports a refused login as auth_failed with Keycloak\'s reason and no password', async () => {
    lab = await startLab();
    const err = await thrown(() => lab!.newClient({ LAB_ZVM_USER: 'someone', LAB_ZVM_PASSWORD: 'wrong-password-123' }).localSite());
    expect(err.code).toBe('auth_failed');
    expect(err.message).toContain('Invalid user credentials');
    expect(err.message).not.toContain('wrong-password-123');
  });

  it('shares one token fetch between concurrent callers and reuses the token', async () => {
    lab = await startLab();
    await Promise.all(Array.from({ length: 8 }, () => lab!.client.listVpgs()));
    await lab.client.localSite();
    expect(lab.callLog.find('zvm:lab-zvm', TOKEN)).toHaveLength(1);
  });

  it('logs in again once after a 401 and replays the call', async () => {
    lab = await startLab();
    await lab.client.listVpgs();
    zvmFaults(lab.zvm).expireTokens();
    const vpgs = await lab.client.listVpgs();
    expect(vpgs.length).toBe(7);
    expect(lab.callLog.find('zvm:lab-zvm', TOKEN)).toHaveLength(2);
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/vpgs')).toHaveLength(3);
  });

  it('renews a token before it expires, without waiting for a 401', async () => {
    // The client's clock moves past the renewal point; the ZVM still takes the old token (its
    // lifetime runs on the wall clock), so only the client's own renewal asks for a new one.
    let ahead = 0;
    lab = await startLab({ tokenLifetimeSec: 2, clock: () => Date.now() + ahead });
    await lab.client.localSite();
    ahead = 1_600;
    await lab.client.localSite();
    expect(lab.callLog.find('zvm:lab-zvm', TOKEN)).toHaveLength(2);
    // Two /v1 calls, no replay: the renewal happened before the request.
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/localsite')).toHaveLength(2);
  });

  it('fails with auth_failed when even a fresh token is refused, without looping', async () => {
    lab = await startLab();
    // Every token the fake issues is immediately stale: the client may log in once more, then stops.
    const realSet = lab.zvm.state.tokens.set.bind(lab.zvm.state.tokens);
    lab.zvm.state.tokens.set = (k, v) => realSet(k, { ...v, epoch: -1 });
    const err = await thrown(() => lab!.client.listVpgs());
    expect(err.code).toBe('auth_failed');
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/vpgs')).toHaveLength(2);
  });
});

describe('token requests where the realm differs', () => {
  it('logs in on a realm that insists on scope=openid, and on one that does not care', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).requireOpenidScope();
    expect((await lab.client.localSite()).SiteName).toBe('lab-zvm');
    const lax = lab.newClient({ LAB_ZVM_USER: LAB_CREDENTIALS.user, LAB_ZVM_PASSWORD: LAB_CREDENTIALS.password });
    zvmFaults(lab.zvm).requireOpenidScope(false);
    expect((await lax.localSite()).SiteName).toBe('lab-zvm');
  });

  it('names a 9.x Windows ZVM (no token route) instead of blaming the credentials', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).windowsSessionAuth();
    const err = await thrown(() => lab!.client.localSite());
    expect(err.code).toBe('zerto_error');
    expect(err.message).toMatch(/no Keycloak token route.*Windows ZVM.*session/);
    expect(err.hint).toMatch(/credentials were not tried/);
    expect(`${err.message} ${err.hint}`).not.toContain(LAB_CREDENTIALS.password);
  });
});
