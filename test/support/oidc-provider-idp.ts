// panva's oidc-provider (a certified OpenID provider) run by the tests, with its defaults except
// what an operator must set for this server (docs/identity-providers.md): client credentials and
// dynamic client registration switched on, and the MCP resource known to its resource indicators,
// with JWT access tokens that carry the MCP scopes. People sign in through the provider's own
// development login and consent pages (any login name, any password).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { SCOPES } from '../../src/core/scopes.js';
import { CookieJar } from './cookie-jar.js';

export interface ProviderIdp {
  issuer: string;
  /** Registers a client (RFC 7591 DCR) allowed the client-credentials grant with these scopes. */
  register(name: string, scope: string): Promise<{ client_id: string; client_secret: string }>;
  /** A client-credentials access token for `resource` with `scope`. */
  clientToken(client: { client_id: string; client_secret: string }, resource: string, scope: string): Promise<string>;
  /**
   * A person's access token for `resource`: the authorization code flow with PKCE of a public
   * client (an MCP client on the person's machine), through the provider's login and consent pages.
   */
  userToken(login: string, resource: string, scope: string): Promise<string>;
  close(): Promise<void>;
}

/** A web client (the dashboard) known from the start: redirect URI, secret, code flow with PKCE. */
export interface ProviderWebClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Where the provider may send the browser after sign-out (the dashboard's base). */
  post_logout_redirect_uris?: string[];
}

export interface ProviderIdpOptions {
  webClients?: ProviderWebClient[];
  /** A groups claim the provider adds to client-credentials tokens (services). */
  serviceGroups?: string[];
  /**
   * People's groups by login, put into their access tokens (as Okta, Entra and Keycloak can); a
   * login not listed gets `groups: []`. Absent: people get no groups claim anywhere (the defaults).
   */
  userGroups?: Record<string, string[]>;
  /**
   * Where people's groups go: `access_token` (extraTokenClaims), or `claims`: a `groups` scope whose
   * claim the account model answers (findAccount), so the provider puts it in the ID token and the
   * userinfo answer, never in the access token.
   */
  userGroupsIn?: 'access_token' | 'claims';
}

/** The public client `userToken` signs people in with; loopback redirect as a native client's. */
const AGENT_CLIENT = { client_id: 'mcp-agent-cli', redirect_uri: 'http://127.0.0.1/agent-callback' };

export async function startProviderIdp(resource: string, opts: ProviderIdpOptions = {}): Promise<ProviderIdp> {
  const http: Server = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const { serviceGroups, userGroups } = opts;
  const groupsAsClaims = userGroups !== undefined && opts.userGroupsIn === 'claims';
  const extraTokenClaims = (_ctx: unknown, token: { kind: string; accountId?: string }) => {
    if (token.kind === 'ClientCredentials') return serviceGroups ? { groups: serviceGroups } : undefined;
    if (token.kind === 'AccessToken' && userGroups && !groupsAsClaims && token.accountId) return { groups: userGroups[token.accountId] ?? [] };
    return undefined;
  };
  const accountClaims = groupsAsClaims ? {
    claims: { openid: ['sub'], groups: ['groups'] },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, groups: userGroups[id] ?? [] }) }),
  } : {};
  const provider = new Provider(issuer, {
    clients: [
      ...(opts.webClients ?? []).map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
      { client_id: AGENT_CLIENT.client_id, redirect_uris: [AGENT_CLIENT.redirect_uri], application_type: 'native', grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    ],
    scopes: ['openid', 'offline_access', ...(groupsAsClaims ? ['groups'] : []), ...SCOPES],
    extraTokenClaims,
    ...accountClaims,
    features: {
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== resource) throw new Error(`unknown resource ${indicator}`);
          return { scope: SCOPES.join(' '), audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
  } as never);
  http.on('request', provider.callback());
  const post = async (path: string, body: URLSearchParams | object, auth?: string) => {
    const res = await fetch(`${issuer}${path}`, {
      method: 'POST',
      headers: { 'content-type': body instanceof URLSearchParams ? 'application/x-www-form-urlencoded' : 'application/json', ...(auth ? { authorization: auth } : {}) },
      body: body instanceof URLSearchParams ? body.toString() : JSON.stringify(body),
    });
    const json = await res.json() as Record<string, unknown>;
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    issuer,
    async register(name, scope) {
      const c = await post('/reg', { client_name: name, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', scope });
      return { client_id: c.client_id as string, client_secret: c.client_secret as string };
    },
    async clientToken(client, res, scope) {
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
      const t = await post('/token', new URLSearchParams({ grant_type: 'client_credentials', resource: res, scope }), basic);
      return t.access_token as string;
    },
    async userToken(login, res, scope) {
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`${issuer}/auth`);
      authorize.search = new URLSearchParams({
        client_id: AGENT_CLIENT.client_id, response_type: 'code', redirect_uri: AGENT_CLIENT.redirect_uri, scope: `openid ${scope}`,
        resource: res, code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      }).toString();
      const arrived = await throughProviderPages(new CookieJar(), authorize.href, login, (u) => u.startsWith(AGENT_CLIENT.redirect_uri));
      const code = new URL(arrived.url).searchParams.get('code');
      if (!code) throw new Error(`no code in ${arrived.url}`);
      const t = await post('/token', new URLSearchParams({
        grant_type: 'authorization_code', code, redirect_uri: AGENT_CLIENT.redirect_uri, code_verifier: verifier, client_id: AGENT_CLIENT.client_id, resource: res,
      }));
      return t.access_token as string;
    },
    close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }),
  };
}

/**
 * Follows redirects from `url` as a browser would, answering the provider's login page as `login`
 * and its consent page with Continue, until `done(url)` holds for a URL it is sent to (that URL is
 * not fetched) or an answer is not a redirect. Returns where it stopped and, if fetched, the answer.
 */
export async function throughProviderPages(jar: CookieJar, url: string, login: string, done: (url: string) => boolean = () => false): Promise<{ url: string; res?: Response }> {
  let current = url;
  for (let i = 0; i < 20; i++) {
    if (done(current)) return { url: current };
    const res = await jar.fetch(current);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      current = new URL(location, current).href;
      continue;
    }
    if (!new URL(current).pathname.startsWith('/interaction/')) return { url: current, res };
    const page = await res.text();
    const answer: Record<string, string> = page.includes('name="prompt" value="login"') ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    const sent = await jar.fetch(current, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(answer).toString() });
    current = new URL(sent.headers.get('location')!, current).href;
  }
  throw new Error(`the sign-in from ${url} did not finish`);
}
