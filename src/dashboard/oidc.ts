// The dashboard as an OpenID Connect relying party (openid-client v6): authorization code flow
// with PKCE (S256), state and nonce, against the same identity provider that issues the MCP bearer
// tokens. The ID token's signature is checked against the issuer's JWKS, and its subject becomes
// `user:<sub>`: the same identity an MCP call of that user carries, so the four-eyes rule compares
// like with like. The sign-in asks for the MCP resource (RFC 8707 `resource=`), so the access
// token it gets is one the MCP endpoint would accept: the session's scopes and groups come from
// that verified token (groups else from the ID token, else userinfo), never from what was asked.
// Loaded only when the dashboard signs people in (HTTP mode with an issuer).
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { groupsOf, principalFromClaims, userIdentity, type Principal } from '../core/principal.js';
import { isLoopbackHost } from '../core/loopback.js';

export interface DashboardSignInConfig {
  /** OAUTH_ISSUER: the identity provider (e.g. https://keycloak.example/realms/ops). */
  issuer: string;
  /** WEB_UI_OIDC_CLIENT_ID. */
  clientId: string;
  /** WEB_UI_OIDC_CLIENT_SECRET (confidential client); absent for a public client (PKCE only). Never logged. */
  clientSecret?: string;
  /**
   * WEB_UI_SESSION_SECRET: seals the sign-in cookies, the same on every instance so that any of
   * them opens them; unset, the client secret serves (sealed-cookie.ts). Never logged.
   */
  sessionSecret?: string;
  /** WEB_UI_PUBLIC_URL: where browsers reach the dashboard; the redirect URL is `<base>/auth/callback`. */
  publicUrl?: string;
  /** Scopes asked for; the MCP scopes among them decide what the signed-in user may approve. */
  scope: string;
  /** Claim naming the user (OAUTH_USER_CLAIM; default `sub`). */
  userClaim?: string;
  /** Claim listing the user's groups (OAUTH_GROUPS_CLAIM; default `groups`). */
  groupsClaim?: string;
  /**
   * The MCP resource (its URL, or OAUTH_AUDIENCE): asked for with `resource=` and the audience the
   * access token must carry. Without it the session has no MCP scopes, so it can read and approve nothing.
   */
  resource?: string;
}

/** How long a call to the identity provider may take before the sign-in says it is unreachable. */
const IDP_TIMEOUT_SECONDS = 5;
/** Sign-in scopes of OpenID Connect itself: they grant nothing on this server. */
const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);

export const CALLBACK_PATH = '/auth/callback';

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface SignedInUser {
  principal: Principal;
  name: string;
}

/** Why a callback was refused; the message is safe to show (no codes, tokens or secrets). */
export class SignInError extends Error {}

export interface OidcRelyingParty {
  redirectUri: string;
  authorizationRequest(): Promise<AuthorizationRequest>;
  /** Validates the callback (state, code exchange with the PKCE verifier, ID token) and returns who signed in. */
  finish(callbackUrl: URL, expected: { state: string; nonce: string; codeVerifier: string }): Promise<SignedInUser>;
  /** The IdP's end-session URL when it has one (sign-out ends the IdP session too). */
  endSessionUrl(postLogoutRedirect: string): Promise<string | undefined>;
}

/** `dashboardBase`: the dashboard's public URL, ending with '/'. */
export function createRelyingParty(cfg: DashboardSignInConfig, dashboardBase: string): OidcRelyingParty {
  // Relative to the base (which ends with '/'), so a reverse proxy's path prefix is kept.
  const redirectUri = new URL(CALLBACK_PATH.slice(1), dashboardBase).href;
  let discovered: Promise<oidc.Configuration> | undefined;
  let keys: JWTVerifyGetKey | undefined;
  const config = (): Promise<oidc.Configuration> => {
    discovered ??= discover(cfg);
    // A failed discovery (IdP briefly down) is retried on the next sign-in, not cached for good.
    discovered.catch(() => { discovered = undefined; });
    return discovered;
  };

  const names = { ...(cfg.userClaim ? { userClaim: cfg.userClaim } : {}), ...(cfg.groupsClaim ? { groupsClaim: cfg.groupsClaim } : {}) };

  /** The access token's principal when it is a JWT for the MCP resource that verifies; else undefined. */
  async function accessPrincipal(c: oidc.Configuration, token: string): Promise<Principal | undefined> {
    const jwks = c.serverMetadata().jwks_uri;
    if (!cfg.resource || !jwks) return undefined;
    keys ??= createRemoteJWKSet(new URL(jwks), { timeoutDuration: IDP_TIMEOUT_SECONDS * 1000 });
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: c.serverMetadata().issuer, audience: cfg.resource, requiredClaims: ['exp'] });
      return principalFromClaims(payload, names);
    } catch {
      return undefined;
    }
  }

  /** Groups from the userinfo endpoint; undefined when it has none or refuses this token. */
  async function userinfoGroups(c: oidc.Configuration, token: string, subject: string): Promise<string[] | undefined> {
    if (!c.serverMetadata().userinfo_endpoint) return undefined;
    try {
      return groupsOf(await oidc.fetchUserInfo(c, token, subject), cfg.groupsClaim);
    } catch {
      return undefined;
    }
  }

  return {
    redirectUri,
    async authorizationRequest() {
      const c = await config();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(c, {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: cfg.scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
        ...(cfg.resource ? { resource: cfg.resource } : {}),
      });
      return { url, state, nonce, codeVerifier };
    },

    async finish(callbackUrl, expected) {
      const c = await config();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(c, callbackUrl, {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        }, cfg.resource ? { resource: cfg.resource } : undefined);
      } catch (err) {
        throw new SignInError(describe(err));
      }
      const claims = tokens.claims();
      if (!claims) throw new SignInError('the identity provider returned no ID token');
      const subjectClaim = cfg.userClaim ?? 'sub';
      const subject = claims[subjectClaim];
      if (typeof subject !== 'string' || subject === '') throw new SignInError(`the ID token has no '${subjectClaim}' claim`);
      const access = await accessPrincipal(c, tokens.access_token);
      if (access && access.subject !== subject) throw new SignInError('the access token names another user than the ID token');
      // The access token first (what an MCP call of this user is judged by), then the ID token;
      // userinfo only when neither has them, since a standards-strict provider refuses the
      // resource-bound token there (and then puts the claims in the ID token): docs/identity-providers.md.
      const groups = access?.groups ?? groupsOf(claims, cfg.groupsClaim) ?? (await userinfoGroups(c, tokens.access_token, subject));
      const name = [claims['name'], claims['preferred_username']].find((v): v is string => typeof v === 'string' && v !== '') ?? subject;
      // Scopes only from a verified token for the MCP resource: what was asked for proves nothing.
      const scopes = (access?.scopes ?? []).filter((s) => !OIDC_SCOPES.has(s));
      return { principal: { identity: userIdentity(subject), subject, groups, scopes, kind: 'user' }, name };
    },

    async endSessionUrl(postLogoutRedirect) {
      const c = await config().catch(() => undefined);
      if (!c?.serverMetadata().end_session_endpoint) return undefined;
      return oidc.buildEndSessionUrl(c, { client_id: cfg.clientId, post_logout_redirect_uri: postLogoutRedirect }).href;
    },
  };
}

async function discover(cfg: DashboardSignInConfig): Promise<oidc.Configuration> {
  const issuer = new URL(cfg.issuer);
  // Plain http only for an issuer on this machine (a test IdP, a local Keycloak): anywhere else the
  // code exchange and the keys must travel over TLS.
  const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
  const auth = cfg.clientSecret ? oidc.ClientSecretBasic(cfg.clientSecret) : oidc.None();
  const c = await oidc.discovery(issuer, cfg.clientId, cfg.clientSecret ? { client_secret: cfg.clientSecret } : undefined, auth, {
    timeout: IDP_TIMEOUT_SECONDS,
    execute: [
      ...(insecure ? [oidc.allowInsecureRequests] : []),
      // Verify the ID token's signature against the issuer's JWKS (not only its claims).
      oidc.enableNonRepudiationChecks,
    ],
  });
  return c;
}

function describe(err: unknown): string {
  if (err instanceof oidc.AuthorizationResponseError) return `the identity provider refused the sign-in (${err.error})`;
  if (err instanceof oidc.ResponseBodyError) return `the identity provider refused the code exchange (${err.error})`;
  const code = (err as { code?: unknown }).code;
  // openid-client wraps the specific check that failed (which claim, which step) as the cause.
  const cause = (err as { cause?: unknown }).cause;
  const message = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  return `the sign-in response did not validate (${typeof code === 'string' ? `${code}: ` : ''}${message})`;
}

