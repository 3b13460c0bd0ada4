// A test OAuth issuer and OpenID provider: an RS256 key pair made with jose, its JWKS and discovery
// document served on 127.0.0.1, and a signer for access tokens with whatever claims a test needs
// (expired ones, other audiences, missing scopes). The server under test fetches the keys over
// HTTP like from Keycloak.
//
// For the dashboard's sign-in it is also a small OpenID provider: an authorization endpoint that
// signs in the user a test chose (no login form), and a token endpoint that redeems a code once,
// only with the PKCE verifier of its challenge, the same redirect URI and the client's secret. Its
// userinfo endpoint answers for any access token it signed, whatever the audience, as Keycloak's does.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWTPayload } from 'jose';

export interface TestOidcClient {
  clientId: string;
  /** Absent: a public client (PKCE only, no client authentication). */
  clientSecret?: string;
  redirectUris: string[];
}

/** One request to the token endpoint, as the provider judged it. */
export interface TokenRequestRecord {
  status: number;
  /** The OAuth error the provider answered, when it refused. */
  error?: string;
  params: Record<string, string>;
}

export interface TestIssuer {
  issuer: string;
  sign(claims: JWTPayload & { sub?: string; scope?: string }, opts?: { audience?: string; expiresIn?: string | number; issuer?: string }): Promise<string>;
  close(): Promise<void>;
  /** Registers an OIDC client (the dashboard). */
  addClient(client: TestOidcClient): void;
  /**
   * The user the authorization endpoint signs in from now on (extra claims go into the ID token,
   * `userinfo` claims only into the userinfo answer); undefined: nobody, it answers login_required.
   */
  loginAs(sub: string | undefined, claims?: Record<string, unknown>, userinfo?: Record<string, unknown>): void;
  /** From now on, sign ID tokens with a key that is not in the JWKS (a forged ID token); false restores. */
  forgeIdTokens(on: boolean): void;
  /** The query of every authorization request, in order. */
  readonly authorizations: Array<Record<string, string>>;
  /** Every token request, in order. */
  readonly tokenRequests: TokenRequestRecord[];
  /** Userinfo requests answered (a valid token) so far. */
  readonly userinfoAnswers: number;
}

export const ALL_SCOPES = 'vsphere:read vsphere:change vsphere:destructive zerto:restore';

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
  scope: string;
  sub: string;
  claims: Record<string, unknown>;
  /** RFC 8707 `resource` of the authorization request: the access token's audience. */
  resource: string | undefined;
  used: boolean;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  let forge = false;
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const clients = new Map<string, TestOidcClient>();
  const codes = new Map<string, IssuedCode>();
  let user: { sub: string; claims: Record<string, unknown> } | undefined;
  const userinfoClaims = new Map<string, Record<string, unknown>>();
  let userinfoAnswers = 0;
  const authorizations: Array<Record<string, string>> = [];
  const tokenRequests: TokenRequestRecord[] = [];

  const signJwt = (claims: JWTPayload, opts: { audience?: string; expiresIn?: string | number; issuer?: string } = {}, key = privateKey): Promise<string> => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).setIssuer(opts.issuer ?? issuer).setIssuedAt();
    if (opts.audience) jwt.setAudience(opts.audience);
    // A number is an absolute exp (seconds since epoch), so a test can mint an expired token.
    jwt.setExpirationTime(opts.expiresIn ?? '10m');
    return jwt.sign(key);
  };

  const discovery = () => ({
    issuer,
    jwks_uri: `${issuer}/jwks.json`,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    end_session_endpoint: `${issuer}/logout`,
    userinfo_endpoint: `${issuer}/userinfo`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    authorization_response_iss_parameter_supported: true,
  });

  function authorize(url: URL, res: ServerResponse): void {
    const q = Object.fromEntries(url.searchParams);
    authorizations.push(q);
    const client = clients.get(q.client_id ?? '');
    // Errors before the redirect URI is trusted are shown here, never redirected (RFC 6749 4.1.2.1).
    if (!client || !q.redirect_uri || !client.redirectUris.includes(q.redirect_uri)) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    const back = new URL(q.redirect_uri);
    const fail = (error: string) => {
      back.searchParams.set('error', error);
      if (q.state) back.searchParams.set('state', q.state);
      back.searchParams.set('iss', issuer);
      redirect(res, back.href);
    };
    if (q.response_type !== 'code') return fail('unsupported_response_type');
    if (q.code_challenge_method !== 'S256' || !q.code_challenge) return fail('invalid_request');
    if (!(q.scope ?? '').split(' ').includes('openid')) return fail('invalid_scope');
    if (!user) return fail('login_required');
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      clientId: client.clientId, redirectUri: q.redirect_uri, challenge: q.code_challenge, nonce: q.nonce,
      // A `granted_scope` claim of the test's user stands for the IdP granting less than was asked.
      scope: typeof user.claims.granted_scope === 'string' ? user.claims.granted_scope : q.scope!, sub: user.sub, claims: user.claims, resource: q.resource, used: false,
    });
    back.searchParams.set('code', code);
    if (q.state) back.searchParams.set('state', q.state);
    back.searchParams.set('iss', issuer);
    redirect(res, back.href);
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const params = Object.fromEntries(new URLSearchParams(await readBody(req)));
    const refuse = (status: number, error: string) => {
      tokenRequests.push({ status, error, params });
      json(res, status, { error });
    };
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent) : [];
    const clientId = basicId ?? params.client_id ?? '';
    const secret = basicSecret ?? params.client_secret;
    const client = clients.get(clientId);
    if (!client || (client.clientSecret !== undefined && secret !== client.clientSecret)) return refuse(401, 'invalid_client');
    if (params.grant_type !== 'authorization_code') return refuse(400, 'unsupported_grant_type');
    const issued = codes.get(params.code ?? '');
    if (!issued || issued.used || issued.clientId !== clientId) return refuse(400, 'invalid_grant');
    // Single use even when the rest is wrong: a replayed or probed code is spent.
    issued.used = true;
    if (params.redirect_uri !== issued.redirectUri) return refuse(400, 'invalid_grant');
    if (!params.code_verifier) return refuse(400, 'invalid_request');
    if (createHash('sha256').update(params.code_verifier).digest('base64url') !== issued.challenge) return refuse(400, 'invalid_grant');
    const idToken = await signJwt({ sub: issued.sub, ...(issued.nonce ? { nonce: issued.nonce } : {}), azp: clientId, ...issued.claims }, { audience: clientId, expiresIn: '5m' }, forge ? foreign.privateKey : privateKey);
    // Like a standards-strict IdP: the access token is for the resource asked for (else the client),
    // and carries the scopes but none of the user's extra claims (groups stay in the ID token).
    const resource = params.resource ?? issued.resource;
    const accessToken = await signJwt({ sub: issued.sub, scope: issued.scope, azp: clientId }, { audience: resource ?? clientId, expiresIn: '5m' });
    tokenRequests.push({ status: 200, params });
    json(res, 200, { access_token: accessToken, id_token: idToken, token_type: 'Bearer', expires_in: 300, scope: issued.scope });
  }

  async function userinfo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const verified = bearer ? await jwtVerify(bearer, publicKey, { issuer }).catch(() => undefined) : undefined;
    const sub = verified?.payload.sub;
    if (!sub) {
      res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
      return void res.end();
    }
    userinfoAnswers += 1;
    json(res, 200, { ...userinfoClaims.get(sub), sub });
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://issuer.invalid');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /jwks.json') return json(res, 200, { keys: [jwk] });
    if (route === 'GET /.well-known/openid-configuration') return json(res, 200, discovery());
    if (route === 'GET /authorize') return authorize(url, res);
    if (route === 'GET /logout') return json(res, 200, { signed_out: true });
    if (route === 'GET /userinfo' || route === 'POST /userinfo') {
      userinfo(req, res).catch(() => json(res, 500, { error: 'server_error' }));
      return;
    }
    if (route === 'POST /token') {
      token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
      return;
    }
    json(res, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    issuer,
    sign: (claims, opts = {}) => signJwt(claims, opts),
    addClient: (client) => { clients.set(client.clientId, client); },
    loginAs: (sub, claims = {}, info) => {
      user = sub === undefined ? undefined : { sub, claims };
      if (sub !== undefined && info) userinfoClaims.set(sub, info);
    },
    forgeIdTokens: (on) => { forge = on; },
    authorizations,
    tokenRequests,
    get userinfoAnswers() { return userinfoAnswers; },
    close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

function redirect(res: ServerResponse, location: string): void {
  res.writeHead(302, { location });
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
