// Where the dashboard's sign-in finds a person's groups when the access token carries none: the ID
// token, else the userinfo endpoint (asked with the sign-in's access token), else nowhere, which
// is "unknown" (a rule by group then denies). Against the test provider, whose userinfo answers
// for its own tokens whatever their audience, as Keycloak's does; oidc-provider, which refuses a
// resource-bound token there, is in test/central/oidc-provider-dashboard.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelyingParty, type OidcRelyingParty, type SignedInUser } from '../../src/dashboard/oidc.js';
import { startTestIssuer, type TestIssuer } from '../support/test-issuer.js';

const BASE = 'http://127.0.0.1:9/';
const RESOURCE = 'https://mcp.team.example/mcp';

let idp: TestIssuer;
let rp: OidcRelyingParty;

beforeAll(async () => {
  idp = await startTestIssuer();
  idp.addClient({ clientId: 'zr-dashboard', clientSecret: 'dashboard-secret', redirectUris: [`${BASE}auth/callback`] });
  rp = createRelyingParty({ issuer: idp.issuer, clientId: 'zr-dashboard', clientSecret: 'dashboard-secret', scope: 'openid vsphere:read', resource: RESOURCE }, BASE);
});

afterAll(async () => {
  await idp?.close();
});

/** The whole round trip: the provider signs in whoever loginAs named and redirects back with a code. */
async function signIn(): Promise<SignedInUser> {
  const request = await rp.authorizationRequest();
  const res = await fetch(request.url, { redirect: 'manual' });
  return rp.finish(new URL(res.headers.get('location')!), request);
}

describe('groups at sign-in when the access token has none', () => {
  it('come from userinfo when only userinfo has them (Keycloak with "Add to userinfo" alone)', async () => {
    idp.loginAs('carol', {}, { groups: ['/ops', 'interns'] });
    const before = idp.userinfoAnswers;
    const user = await signIn();
    expect(user.principal).toMatchObject({ identity: 'user:carol', groups: ['ops', 'interns'], scopes: ['vsphere:read'] });
    expect(idp.userinfoAnswers).toBe(before + 1);
  });

  it('come from the ID token when it has them, and userinfo is not asked', async () => {
    idp.loginAs('dave', { groups: ['ops'] }, { groups: ['something-else'] });
    const before = idp.userinfoAnswers;
    expect((await signIn()).principal.groups).toEqual(['ops']);
    expect(idp.userinfoAnswers).toBe(before);
  });

  it('are unknown (not "no groups") when neither token nor userinfo has them', async () => {
    idp.loginAs('erin', {}, {});
    const before = idp.userinfoAnswers;
    const user = await signIn();
    expect(user.principal.identity).toBe('user:erin');
    expect(user.principal.groups).toBeUndefined();
    expect(idp.userinfoAnswers).toBe(before + 1);
  });
});
