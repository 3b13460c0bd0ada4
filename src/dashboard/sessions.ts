// State of the dashboard's OIDC sign-in: the short-lived login attempts (state, nonce, PKCE verifier
// between the redirect to the identity provider and its callback) and the signed-in sessions. A
// login attempt travels sealed in its own cookie (AES-256-GCM under a key of this process), so no
// number of anonymous /auth/login requests can push someone else's pending sign-in out; only spent
// attempts are remembered, to keep a callback single use. A session is a random id in an HttpOnly
// cookie, and what it stands for stays here, so a forged or altered cookie names nothing. Per process: behind a
// load balancer, route one browser to one instance (or sign in again: the IdP's own SSO session
// makes that a redirect, not a password prompt).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../core/principal.js';
import { readCookie } from './http.js';

export const SESSION_COOKIE = 'zerto_rewind_session';
export const LOGIN_COOKIE = 'zerto_rewind_login';

/** A login attempt must come back from the IdP within this time. */
const LOGIN_TTL_MS = 10 * 60_000;
/** Signed-in sessions end after this much inactivity, and after MAX_MS whatever happens. */
const IDLE_MS = 30 * 60_000;
const MAX_MS = 8 * 60 * 60_000;
/** Spent login attempts remembered at most (the oldest go first; their codes are spent at the IdP too). */
const MAX_SPENT = 10_000;
/** Signed-in sessions kept at most (the oldest go first). */
const MAX_SESSIONS = 10_000;

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

export class DashboardSessions {
  // Keyed by a digest of the cookie value: a memory dump or a log of keys holds no usable cookie.
  /** Digests of login cookies already used, with their expiry: a replayed callback finds its attempt spent. */
  private readonly spent = new Map<string, number>();
  private readonly sessions = new Map<string, SignedInSession>();
  private readonly sealKey = randomBytes(32);

  constructor(private readonly now: () => number = Date.now) {}

  /** Seals a login attempt into the cookie value that carries it (nothing is stored here). */
  startLogin(attempt: Omit<LoginAttempt, 'expiresAt'>): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ ...attempt, expiresAt: this.now() + LOGIN_TTL_MS }), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The attempt the request's login cookie carries, spent: a callback is single use. */
  takeLogin(req: IncomingMessage): LoginAttempt | undefined {
    const sealed = readCookie(req.headers.cookie, LOGIN_COOKIE);
    if (sealed === undefined) return undefined;
    const attempt = this.unseal(sealed);
    if (!attempt) return undefined;
    const key = digest(sealed);
    const now = this.now();
    if (this.spent.has(key) || attempt.expiresAt <= now) return undefined;
    // In insertion order with one lifetime, so expired entries are a prefix: stop at a live one.
    for (const [k, until] of this.spent) {
      if (until > now) break;
      this.spent.delete(k);
    }
    while (this.spent.size >= MAX_SPENT) this.spent.delete(this.spent.keys().next().value!);
    this.spent.set(key, attempt.expiresAt);
    return attempt;
  }

  /** Undefined for anything this process did not seal (forged, altered, another instance's, from before a restart). */
  private unseal(value: string): LoginAttempt | undefined {
    try {
      const raw = Buffer.from(value, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const a = JSON.parse(text) as LoginAttempt;
      return typeof a.state === 'string' && typeof a.nonce === 'string' && typeof a.codeVerifier === 'string' && typeof a.expiresAt === 'number' ? a : undefined;
    } catch {
      return undefined;
    }
  }

  /** Creates a session; returns the cookie value that names it. */
  create(principal: Principal, name: string): string {
    const now = this.now();
    for (const [k, s] of this.sessions) if (!alive(s, now)) this.sessions.delete(k);
    return this.insert(this.sessions, MAX_SESSIONS, { principal, name, createdAt: now, lastSeen: now });
  }

  /** Stores `entry` under a new cookie value (the oldest entry goes at the cap); returns the value. */
  private insert<T>(map: Map<string, T>, max: number, entry: T): string {
    while (map.size >= max) map.delete(map.keys().next().value!);
    const id = newId();
    map.set(digest(id), entry);
    return id;
  }

  /** The live session named by the request's session cookie (its idle timer restarts). */
  lookup(req: IncomingMessage): SignedInSession | undefined {
    const id = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (id === undefined) return undefined;
    const key = digest(id);
    const s = this.sessions.get(key);
    if (!s) return undefined;
    const now = this.now();
    if (!alive(s, now)) {
      this.sessions.delete(key);
      return undefined;
    }
    s.lastSeen = now;
    return s;
  }

  /** Ends the session the request names (sign-out) and returns it, when there was a live one. */
  end(req: IncomingMessage): SignedInSession | undefined {
    const s = this.lookup(req);
    if (s) this.sessions.delete(digest(readCookie(req.headers.cookie, SESSION_COOKIE)!));
    return s;
  }
}

function alive(s: SignedInSession, now: number): boolean {
  return now - s.lastSeen < IDLE_MS && now - s.createdAt < MAX_MS;
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

function newId(): string {
  return randomBytes(32).toString('base64url');
}

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}
