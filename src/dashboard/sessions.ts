// State of the dashboard's OIDC sign-in, carried by the browser: a login attempt (state, nonce,
// PKCE verifier between the redirect to the identity provider and its callback) and a signed-in
// session each travel sealed in their own HttpOnly cookie (sealed-cookie.ts), with their expiry
// inside. No instance remembers a session, so behind a load balancer any instance answers any
// browser request; what a cookie cannot say about itself, that its callback ran or that it was
// signed out, is recorded in the revocations (sign-in-revocations.ts: PostgreSQL in central mode).
// The session holds the verified principal and display name only: no IdP token is kept.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../core/principal.js';
import { readCookie } from './http.js';
import { cookieKeys, seal, unseal, type CookieKeys } from './sealed-cookie.js';
import { MemorySignInRevocations, type SignInRevocations } from './sign-in-revocations.js';

export const SESSION_COOKIE = 'zerto_rewind_session';
export const LOGIN_COOKIE = 'zerto_rewind_login';

/** A login attempt must come back from the IdP within this time. */
const LOGIN_TTL_MS = 10 * 60_000;
/** Signed-in sessions end after this much inactivity, and after MAX_MS whatever happens. */
const IDLE_MS = 30 * 60_000;
const MAX_MS = 8 * 60 * 60_000;
/** A request this long after the cookie's last renewal renews it (its idle clock restarts). */
const RENEW_AFTER_MS = 60_000;
/** Browsers drop a cookie beyond about 4 KB silently: refuse the sign-in instead, saying why. */
const MAX_COOKIE_CHARS = 4_000;

export interface LoginAttempt {
  state: string;
  nonce: string;
  codeVerifier: string;
  expiresAt: number;
}

export interface SignedInSession {
  principal: Principal;
  /** Display name from the ID token (`name`, else `preferred_username`), for the page only. */
  name: string;
  createdAt: number;
  lastSeen: number;
}

/** The session cookie's payload: the session and the id its sign-out is recorded under. */
interface SealedSession extends SignedInSession {
  sid: string;
}

/** A live session, and the renewed cookie to send when its idle clock restarted. */
export interface FoundSession {
  session: SignedInSession;
  /** The new cookie value, and its Max-Age: what is left of the session's MAX_MS. */
  renewed?: { value: string; maxAgeSeconds: number };
}

/** The signed-in identity does not fit in a cookie (typically: a token with very many groups). */
export class SessionTooLarge extends Error {}

export interface SessionOptions {
  /** The secret every instance shares (cookieKeys); undefined: keys of this process only. */
  secret?: string;
  /** Salt of the key derivation: the dashboard's OIDC client id. */
  clientId?: string;
  revocations?: SignInRevocations;
  now?: () => number;
}

export class DashboardSessions {
  private readonly keys: CookieKeys;
  private readonly revocations: SignInRevocations;
  private readonly now: () => number;

  constructor(opts: SessionOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.keys = cookieKeys(opts.secret, opts.clientId ?? 'zerto-rewind-dashboard');
    this.revocations = opts.revocations ?? new MemorySignInRevocations(this.now);
  }

  /** False: no shared secret, so a cookie opens on this process only. */
  get sharedAcrossInstances(): boolean {
    return this.keys.shared;
  }

  /** Seals a login attempt into the cookie value that carries it (nothing is stored). */
  startLogin(attempt: Omit<LoginAttempt, 'expiresAt'>): string {
    return seal(this.keys.login, { ...attempt, expiresAt: this.now() + LOGIN_TTL_MS });
  }

  /**
   * The attempt the request's login cookie carries, spent: a callback is single use, on whichever
   * instance it lands. Rejects when the revocations cannot be reached (no sign-in then).
   */
  async takeLogin(req: IncomingMessage): Promise<LoginAttempt | undefined> {
    const sealed = readCookie(req.headers.cookie, LOGIN_COOKIE);
    if (sealed === undefined) return undefined;
    const attempt = asLoginAttempt(unseal(this.keys.login, sealed));
    if (!attempt || attempt.expiresAt <= this.now()) return undefined;
    // Keyed by a digest of the cookie value: the table or a memory dump holds no usable cookie.
    return (await this.revocations.spend('login', digest(sealed), attempt.expiresAt)) ? attempt : undefined;
  }

  /** Seals a new session; returns the cookie value that carries it. */
  create(principal: Principal, name: string): string {
    const now = this.now();
    const value = seal(this.keys.session, { sid: randomBytes(16).toString('base64url'), principal, name, createdAt: now, lastSeen: now } satisfies SealedSession);
    if (value.length > MAX_COOKIE_CHARS) {
      throw new SessionTooLarge(`the signed-in identity needs ${value.length} characters in a cookie, more than browsers keep (${principal.groups?.length ?? 0} groups)`);
    }
    return value;
  }

  /**
   * The live session the request's cookie carries. Rejects when the revocations cannot be
   * reached: a sign-out elsewhere might be missed, so nobody is let in (fail closed).
   */
  async lookup(req: IncomingMessage): Promise<FoundSession | undefined> {
    const found = await this.open(req);
    if (!found) return undefined;
    const { sid, ...session } = found;
    const now = this.now();
    if (now - session.lastSeen < RENEW_AFTER_MS) return { session };
    const value = seal(this.keys.session, { sid, ...session, lastSeen: now } satisfies SealedSession);
    return { session: { ...session, lastSeen: now }, renewed: { value, maxAgeSeconds: Math.ceil((session.createdAt + MAX_MS - now) / 1000) } };
  }

  /** Ends the session the request carries (sign-out, on every instance) and returns it, when there was a live one. */
  async end(req: IncomingMessage): Promise<SignedInSession | undefined> {
    const found = await this.open(req);
    if (!found) return undefined;
    const { sid, ...session } = found;
    await this.revocations.spend('session', sid, found.createdAt + MAX_MS);
    return session;
  }

  private async open(req: IncomingMessage): Promise<SealedSession | undefined> {
    const value = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (value === undefined) return undefined;
    const s = asSealedSession(unseal(this.keys.session, value));
    if (!s || !alive(s, this.now())) return undefined;
    return (await this.revocations.isSpent('session', s.sid)) ? undefined : s;
  }
}

function alive(s: SignedInSession, now: number): boolean {
  return now - s.lastSeen < IDLE_MS && now - s.createdAt < MAX_MS;
}

function asLoginAttempt(v: unknown): LoginAttempt | undefined {
  const a = v as Partial<LoginAttempt> | undefined;
  return typeof a?.state === 'string' && typeof a.nonce === 'string' && typeof a.codeVerifier === 'string' && typeof a.expiresAt === 'number' ? a as LoginAttempt : undefined;
}

function asSealedSession(v: unknown): SealedSession | undefined {
  const s = v as Partial<SealedSession> | undefined;
  const p = s?.principal;
  return typeof s?.sid === 'string' && typeof s.name === 'string' && typeof s.createdAt === 'number' && typeof s.lastSeen === 'number' &&
    typeof p?.identity === 'string' && typeof p.subject === 'string' && Array.isArray(p.scopes) ? s as SealedSession : undefined;
}

/**
 * Set-Cookie for a session or login cookie. HttpOnly: no script reads it. SameSite=Lax: the IdP's
 * redirect back to the callback is a cross-site top-level navigation, which Strict would strip;
 * Lax still keeps the cookie off cross-site POSTs and subrequests, and every write additionally
 * passes the CSRF checks (csrf.ts). Secure unless the dashboard is served over plain http.
 */
export function cookieHeader(name: string, value: string, opts: { secure: boolean; maxAgeSeconds: number; path?: string }): string {
  return [
    `${name}=${value}`, `Path=${opts.path ?? '/'}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${opts.maxAgeSeconds}`,
    ...(opts.secure ? ['Secure'] : []),
  ].join('; ');
}

export const LOGIN_COOKIE_MAX_AGE_S = LOGIN_TTL_MS / 1000;
export const SESSION_COOKIE_MAX_AGE_S = MAX_MS / 1000;

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
