// panva's oidc-provider (a certified OpenID provider) run by the tests, with its defaults except
// what an operator must set for this server (docs/identity-providers.md): client credentials and
// dynamic client registration switched on, and the MCP resource known to its resource indicators,
// with JWT access tokens that carry the MCP scopes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { SCOPES } from '../../src/core/scopes.js';

export interface ProviderIdp {
  issuer: string;
  /** Registers a client (RFC 7591 DCR) allowed the client-credentials grant with these scopes. */
  register(name: string, scope: string): Promise<{ client_id: string; client_secret: string }>;
  /** A client-credentials access token for `resource` with `scope`. */
  clientToken(client: { client_id: string; client_secret: string }, resource: string, scope: string): Promise<string>;
  close(): Promise<void>;
}

/** A web client (the dashboard) known from the start: redirect URI, secret, code flow with PKCE. */
export interface ProviderWebClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** `serviceGroups`: a groups claim the provider adds to client-credentials tokens only (users get none). */
export async function startProviderIdp(resource: string, webClients: ProviderWebClient[] = [], serviceGroups?: string[]): Promise<ProviderIdp> {
  const http: Server = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: webClients.map((c) => ({ ...c, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' })),
    scopes: ['openid', 'offline_access', ...SCOPES],
    ...(serviceGroups ? { extraTokenClaims: (_ctx: unknown, token: { kind: string }) => (token.kind === 'ClientCredentials' ? { groups: serviceGroups } : undefined) } : {}),
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
    close: () => new Promise<void>((r) => { http.closeAllConnections(); http.close(() => r()); }),
  };
}
