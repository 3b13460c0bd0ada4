// Server-side state of the dashboard's OIDC sign-in: the short-lived login attempts (state, nonce,
// PKCE verifier between the redirect to the identity provider and its callback) and the signed-in
// sessions. The browser holds only random ids in HttpOnly cookies; everything the ids stand for
// stays here, so a forged or altered cookie names nothing and is refused. Per process: behind a
// load balancer, route one browser to one instance (or sign in again: the IdP's own SSO session
// makes that a redirect, not a password prompt).
import { createHash, randomBytes } from 'node:crypto';
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
/** Open login attempts kept at most (the oldest go first): a client looping on /auth/login cannot grow memory. */
const MAX_LOGINS = 10_000;
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
  private readonly logins = new Map<string, LoginAttempt>();
  private readonly sessions = new Map<string, SignedInSession>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Stores a login attempt; returns the cookie value that names it. */
  startLogin(attempt: Omit<LoginAttempt, 'expiresAt'>): string {
    const now = this.now();
    // In insertion order with one lifetime, so expired attempts are a prefix: stop at a live one.
    for (const [k, a] of this.logins) {
      if (a.expiresAt > now) break;
      this.logins.delete(k);
    }
    return this.insert(this.logins, MAX_LOGINS, { ...attempt, expiresAt: now + LOGIN_TTL_MS });
  }

  /** The attempt named by the request's login cookie, removed: a callback is single use. */
  takeLogin(req: IncomingMessage): LoginAttempt | undefined {
    const id = readCookie(req.headers.cookie, LOGIN_COOKIE);
    if (id === undefined) return undefined;
    const key = digest(id);
    const attempt = this.logins.get(key);
    this.logins.delete(key);
    return attempt && attempt.expiresAt > this.now() ? attempt : undefined;
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
