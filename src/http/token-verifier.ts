// Bearer token validation for the OAuth 2.1 resource server: a JWT signed by the issuer's keys
// (its JWKS, fetched and cached by jose), issued by that issuer, for this server's resource URL
// (audience), not expired. Scopes, subject and groups come from the verified claims only.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { groupsOf, userIdentity, type Principal } from '../core/principal.js';

export interface TokenVerifierOptions {
  issuer: string;
  /** The JWKS; default: jwks_uri from the issuer's OpenID/OAuth discovery document. */
  jwksUrl?: string;
  /** Expected `aud`: this server's resource URL unless the IdP uses a client id. */
  audience: string;
  /** Claim that names the user (default `sub`). */
  userClaim?: string;
  /** Claim that lists the user's groups (default `groups`). */
  groupsClaim?: string;
  /** Seconds of clock skew tolerated on exp/nbf (default 30). */
  clockToleranceSeconds?: number;
}

export class TokenError extends Error {
  constructor(
    /** RFC 6750: invalid_request (no token), invalid_token (bad, expired, wrong audience). */
    readonly code: 'invalid_request' | 'invalid_token',
    message: string,
  ) {
    super(message);
  }
}

export class TokenVerifier {
  private keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(private readonly opts: TokenVerifierOptions) {}

  async verify(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keySet(), {
        issuer: this.opts.issuer,
        audience: this.opts.audience,
        clockTolerance: this.opts.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw new TokenError('invalid_token', describe(err));
    }
    const subjectClaim = this.opts.userClaim ?? 'sub';
    const subject = payload[subjectClaim];
    if (typeof subject !== 'string' || !subject) throw new TokenError('invalid_token', `the token has no '${subjectClaim}' claim`);
    const scopes = scopesOf(payload);
    const groups = groupsOf(payload, this.opts.groupsClaim);
    const principal: Principal = { identity: userIdentity(subject), subject, groups, scopes };
    const clientId = typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : 'unknown';
    return { token, clientId, scopes, ...(payload.exp ? { expiresAt: payload.exp } : {}), extra: { principal } };
  }

  private keySet(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.discoverJwks().then((url) => createRemoteJWKSet(new URL(url)));
    // A failed discovery is retried on the next request rather than cached for the process's life.
    this.keys.catch(() => { this.keys = undefined; });
    return this.keys;
  }

  private async discoverJwks(): Promise<string> {
    if (this.opts.jwksUrl) return this.opts.jwksUrl;
    const base = this.opts.issuer.replace(/\/$/, '');
    for (const doc of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${base}${doc}`).catch(() => undefined);
      if (!res?.ok) continue;
      const body = (await res.json().catch(() => ({}))) as { jwks_uri?: unknown };
      if (typeof body.jwks_uri === 'string') return body.jwks_uri;
    }
    throw new Error(`no jwks_uri found at ${base}/.well-known/openid-configuration; set OAUTH_JWKS_URL`);
  }
}

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the token expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `the token's '${err.claim}' claim is not accepted (${err.reason})`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) return 'the token signature does not verify against the issuer keys';
  if (err instanceof joseErrors.JOSEError) return `the token is not valid (${err.code})`;
  return `the token could not be verified: ${(err as Error).message}`;
}
