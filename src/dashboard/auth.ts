// Who may talk to the dashboard. The page can approve AND execute destructive changes on a real
// vCenter, so it never runs without a token, and every request (page, assets, JSON API) proves it.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../core/errors.js';
import { readCookie } from './http.js';
import { ownText } from '../core/own-text.js';

/** Shorter tokens are refused: the token is the only thing between a browser and a delete_vm. */
export const MIN_TOKEN_LENGTH = 16;

/** Cookie that lets the browser load the page shell and its static files (see assetCookieValue). */
export const ASSET_COOKIE = 'zerto_rewind_dashboard_assets';

/**
 * Throws `config_invalid` when the dashboard is enabled without a usable WEB_UI_TOKEN: an
 * unauthenticated approval UI must not start, not even on 127.0.0.1 (any local process or any web
 * page the operator visits could reach it).
 */
export function assertDashboardConfig(cfg: { enabled: boolean; token?: string | undefined }): void {
  if (!cfg.enabled) return;
  const token = cfg.token ?? '';
  if (token.trim().length === 0) {
    throw new AppError('config_invalid', ownText('WEB_UI_ENABLED=true but WEB_UI_TOKEN is not set: the dashboard refuses to start without a token.'), {
      hint: ownText('Set WEB_UI_TOKEN to a random secret, e.g. WEB_UI_TOKEN=$(openssl rand -hex 16), or set WEB_UI_ENABLED=false.'),
    });
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new AppError('config_invalid', ownText(`WEB_UI_TOKEN is too short (${token.length} characters; at least ${MIN_TOKEN_LENGTH} are required).`), {
      hint: ownText('Use a random secret, e.g. WEB_UI_TOKEN=$(openssl rand -hex 16).'),
    });
  }
  const bits = estimatedBits(token);
  if (bits < MIN_TOKEN_BITS || new Set(token).size < MIN_DISTINCT_CHARACTERS) {
    throw new AppError('config_invalid', ownText(`WEB_UI_TOKEN is too predictable (about ${Math.floor(bits)} bits by its character mix; at least ${MIN_TOKEN_BITS} and ${MIN_DISTINCT_CHARACTERS} different characters are required).`), {
      hint: ownText('Use a random secret, e.g. WEB_UI_TOKEN=$(openssl rand -hex 16) (32 characters).'),
    });
  }
}

/** Strength floor: a repeated or two-letter token (`aaaa...`, `abab...`) is length without secrecy. */
export const MIN_TOKEN_BITS = 64;
export const MIN_DISTINCT_CHARACTERS = 8;

/**
 * Length times the Shannon entropy of the token's own character frequencies: an upper bound on
 * what the token can hold, so a low value proves a weak token (a high one proves nothing more).
 */
export function estimatedBits(token: string): number {
  const counts = new Map<string, number>();
  for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1);
  const n = [...token].length;
  let perChar = 0;
  for (const k of counts.values()) perChar -= (k / n) * Math.log2(k / n);
  return perChar * n;
}

/** How the request presented the token, for logs only (never the value). */
export type TokenSource = 'header' | 'bearer' | 'query' | 'cookie';

export interface Authenticator {
  /** True when the request carries the token in any of the three accepted forms. */
  checkToken(req: IncomingMessage, url: URL): { ok: boolean; source?: TokenSource };
  /** True when the request carries the asset cookie; accepted for the page and static files only. */
  checkAssetCookie(req: IncomingMessage): boolean;
  /** The Set-Cookie value to hand out with an authenticated page load. */
  assetCookieHeader(): string;
}

export function createAuthenticator(token: string): Authenticator {
  const tokenDigest = digest(token);
  const cookieValue = assetCookieValue(token);
  const cookieDigest = digest(cookieValue);

  return {
    checkToken(req, url) {
      const presented = presentedToken(req, url);
      if (presented === undefined) return { ok: false };
      return { ok: timingSafeEqual(digest(presented.value), tokenDigest), source: presented.source };
    },
    checkAssetCookie(req) {
      const value = readCookie(req.headers.cookie, ASSET_COOKIE);
      return value !== undefined && timingSafeEqual(digest(value), cookieDigest);
    },
    assetCookieHeader() {
      // HttpOnly: scripts never see it. SameSite=Strict: no cross-site request carries it. It is
      // never accepted by /api/*, so it cannot approve anything even if a site could send it.
      return `${ASSET_COOKIE}=${cookieValue}; Path=/; HttpOnly; SameSite=Strict`;
    },
  };
}

/**
 * Why a cookie at all: after the page moves `?token=` out of the address bar, the browser still has
 * to fetch app.js/app.css (which cannot carry a header) and must survive a reload. The cookie is an
 * HMAC of the token, not the token, so it leaks nothing usable against the JSON API, and it only
 * opens the static shell, which holds no data.
 */
function assetCookieValue(token: string): string {
  return createHmac('sha256', token).update('zerto-rewind-dashboard assets v1').digest('base64url');
}

function presentedToken(req: IncomingMessage, url: URL): { value: string; source: TokenSource } | undefined {
  const header = req.headers['x-auth-token'];
  if (typeof header === 'string' && header.length > 0) return { value: header, source: 'header' };
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m?.[1] !== undefined) return { value: m[1], source: 'bearer' };
  }
  const query = url.searchParams.get('token');
  if (query !== null && query.length > 0) return { value: query, source: 'query' };
  return undefined;
}

// Comparing fixed-length digests keeps timingSafeEqual from throwing on a length mismatch and keeps
// the comparison time independent of how much of the token a guess got right.
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
