// Bearer token validation for the OAuth 2.1 resource server: a JWT signed by the issuer's keys
// (its JWKS, fetched and cached by jose), issued by that issuer, for this server's resource URL
// (audience), not expired. Scopes, subject and groups come from the verified claims only.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { principalFromClaims } from '../../core/principal.js';

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
  /** How long discovery and the key fetch may take (default 5 s), and the pause after a failure (default 10 s). */
  issuerTimeoutMs?: number;
  issuerBackoffMs?: number;
  now?: () => number;
}

/** How long discovery and the key fetch may take by default: a request to /mcp is answered within it. */
export const ISSUER_TIMEOUT_MS = 5_000;
/** How long requests are answered 503 at once after the issuer failed, before it is tried again. */
export const ISSUER_BACKOFF_MS = 10_000;

/** The issuer did not answer (in time): no token can be judged, so the caller gets 503, not 401. */
export class IssuerUnavailableError extends Error {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
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
  /** After a failed discovery, requests are answered at once until this time (no pile-up on a hung IdP). */
  private failure: { until: number; message: string } | undefined;

  constructor(private readonly opts: TokenVerifierOptions) {}

  private get now(): number {
    return (this.opts.now ?? Date.now)();
  }

  async verify(token: string): Promise<AuthInfo> {
    let payload: JWTPayload;
    const keys = await this.keySet();
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.opts.issuer,
        audience: this.opts.audience,
        clockTolerance: this.opts.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout) throw this.unavailable(`the identity provider's keys did not arrive within ${this.timeoutMs / 1000}s`);
      throw new TokenError('invalid_token', describe(err));
    }
    const principal = principalFromClaims(payload, { ...(this.opts.userClaim ? { userClaim: this.opts.userClaim } : {}), ...(this.opts.groupsClaim ? { groupsClaim: this.opts.groupsClaim } : {}) });
    if (!principal) throw new TokenError('invalid_token', `the token has no '${this.opts.userClaim ?? 'sub'}' claim`);
    const scopes = principal.scopes;
    const clientId = typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : 'unknown';
    return { token, clientId, scopes, ...(payload.exp ? { expiresAt: payload.exp } : {}), extra: { principal } };
  }

  private get timeoutMs(): number {
    return this.opts.issuerTimeoutMs ?? ISSUER_TIMEOUT_MS;
  }

  private unavailable(why: string): IssuerUnavailableError {
    const backoff = this.opts.issuerBackoffMs ?? ISSUER_BACKOFF_MS;
    this.failure = { until: this.now + backoff, message: why };
    return new IssuerUnavailableError(`${why}; tokens cannot be checked, retry in ${Math.ceil(backoff / 1000)}s`, Math.ceil(backoff / 1000));
  }

  private async keySet(): Promise<JWTVerifyGetKey> {
    if (this.failure && this.now < this.failure.until) {
      throw new IssuerUnavailableError(`${this.failure.message}; tokens cannot be checked, retry in ${Math.ceil((this.failure.until - this.now) / 1000)}s`, Math.ceil((this.failure.until - this.now) / 1000));
    }
    this.keys ??= this.discoverJwks().then((url) => createRemoteJWKSet(new URL(url), { timeoutDuration: this.timeoutMs }));
    // A failed discovery is retried after the back-off rather than cached for the process's life.
    this.keys.catch(() => { this.keys = undefined; });
    try {
      return await this.keys;
    } catch (err) {
      throw this.unavailable((err as Error).message);
    }
  }

  private async discoverJwks(): Promise<string> {
    if (this.opts.jwksUrl) return this.opts.jwksUrl;
    const base = this.opts.issuer.replace(/\/$/, '');
    for (const doc of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const res = await fetch(`${base}${doc}`, { signal: AbortSignal.timeout(this.timeoutMs) }).catch((err: unknown) => {
        if ((err as Error).name === 'TimeoutError') throw new Error(`the identity provider (${base}) did not answer discovery within ${this.timeoutMs / 1000}s`);
        return undefined;
      });
      if (!res?.ok) continue;
      const body = (await res.json().catch(() => ({}))) as { jwks_uri?: unknown };
      if (typeof body.jwks_uri === 'string') return body.jwks_uri;
    }
    throw new Error(`no jwks_uri found at ${base}/.well-known/openid-configuration; set OAUTH_JWKS_URL`);
  }
}

function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the token expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `the token's '${err.claim}' claim is not accepted (${err.reason})`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) return 'the token signature does not verify against the issuer keys';
  if (err instanceof joseErrors.JOSEError) return `the token is not valid (${err.code})`;
  return `the token could not be verified: ${(err as Error).message}`;
}
