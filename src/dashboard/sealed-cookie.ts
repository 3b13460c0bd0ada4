// Cookie values the dashboard seals: AES-256-GCM over a JSON payload, so a browser carries its own
// state (a pending sign-in, a signed-in session) and no instance has to remember it. The browser
// can read neither the identity inside nor change it: an altered value fails the tag and opens
// nothing. Every instance that shares the secret (WEB_UI_SESSION_SECRET, else the dashboard's OIDC
// client secret) derives the same keys, so any of them opens what another sealed.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** One key per kind of cookie: a login cookie never opens as a session, nor the other way round. */
export interface CookieKeys {
  login: Buffer;
  session: Buffer;
  /** False: random keys of this process (no shared secret); another instance opens nothing it sealed. */
  shared: boolean;
}

/**
 * The keys sealing the dashboard's cookies. `secret` undefined: random ones, good for this process
 * only. HKDF with the client id as salt keeps two dashboards that share a secret apart.
 */
export function cookieKeys(secret: string | undefined, clientId: string): CookieKeys {
  if (secret === undefined) return { login: randomBytes(32), session: randomBytes(32), shared: false };
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', secret, clientId, `zerto-rewind-mcp dashboard ${purpose} cookie v1`, 32));
  return { login: derive('login'), session: derive('session'), shared: true };
}

export function seal(key: Buffer, payload: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The payload, or undefined for anything these keys did not seal (forged, altered, another deployment's). */
export function unseal(key: Buffer, value: string): unknown {
  try {
    const raw = Buffer.from(value, 'base64url');
    if (raw.length < 29) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
