// Keycloak token lifecycle for one ZVM. The grant follows which secret is set: `{PREFIX}_CLIENT_SECRET`
// means client_credentials, `{PREFIX}_USER` + `{PREFIX}_PASSWORD` mean the password grant. Secrets
// are read at fetch time, so rotating an environment variable needs no restart. A token is reused
// until shortly before `expires_in` runs out; concurrent callers share one fetch; a 401 from /v1
// invalidates exactly the token that failed (not a newer one another caller already fetched).
// Re-login instead of refresh_token: no Zerto sample uses refresh (inferred: docs/zerto-notes.md).

import { z } from 'zod';
import { AppError } from '../core/errors.js';
import type { SecretSource } from '../core/secrets.js';
import { ZvmHttp } from './http.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { ZertoSiteConfig } from './site-config.js';
import { errorBodyText, redactSecrets } from './wire-errors.js';
import { ownText } from '../core/own-text.js';

export const TOKEN_PATH = '/auth/realms/zerto/protocol/openid-connect/token';
export const LOGOUT_PATH = '/auth/realms/zerto/protocol/openid-connect/logout';

/** Re-authenticate this long before expiry (capped at a quarter of short lifetimes). */
const EXPIRY_MARGIN_MS = 30_000;

const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
  refresh_token: z.string().optional(),
  token_type: z.string().optional(),
});

type Grant = { kind: 'password'; user: string; password: string } | { kind: 'client_credentials'; secret: string };

interface CachedToken {
  accessToken: string;
  refreshToken: string | undefined;
  renewAt: number;
}

export interface TokenManagerOptions {
  site: ZertoSiteConfig;
  http: ZvmHttp;
  secrets: SecretSource;
  logger?: Logger;
  timeoutMs: number;
  now?: () => number;
}

export class TokenManager {
  private cached: CachedToken | undefined;
  private inflight: Promise<CachedToken> | undefined;
  private warnedBoth = false;
  /** Tokens this manager has held: never allowed into an error message. */
  private readonly issued: string[] = [];
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly opts: TokenManagerOptions) {
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? silentLogger;
  }

  /** A bearer token valid for at least the margin. */
  async token(signal?: AbortSignal): Promise<string> {
    const c = this.cached;
    if (c && this.now() < c.renewAt) return c.accessToken;
    // Shared fetch: the first caller's signal must not cancel everyone else's login, so the
    // fetch runs unsignalled (it has its own timeout) and each caller waits with its own signal.
    this.inflight ??= this.fetchToken().finally(() => {
      this.inflight = undefined;
    });
    return (await abortable(this.inflight, signal, this.opts.site.name)).accessToken;
  }

  /** Called on a 401: forget `token` unless a newer one has already replaced it. */
  invalidate(token: string): void {
    if (this.cached?.accessToken === token) this.cached = undefined;
  }

  /** Every value that must never appear in output: tokens held plus the configured secrets. */
  secretValues(): string[] {
    const p = this.opts.site.credentialPrefix;
    const s = this.opts.secrets;
    const configured = [s.get(`${p}_PASSWORD`), s.get(`${p}_CLIENT_SECRET`)].filter((v): v is string => !!v);
    return [...this.issued, ...configured, ...s.knownValues()];
  }

  /** Best-effort Keycloak logout at shutdown; failures are logged, never thrown. */
  async logout(): Promise<void> {
    const c = this.cached;
    this.cached = undefined;
    if (!c?.refreshToken) return;
    const form = new URLSearchParams({ client_id: this.opts.site.clientId, refresh_token: c.refreshToken });
    const grant = this.grant(false);
    if (grant?.kind === 'client_credentials') form.set('client_secret', grant.secret);
    try {
      const res = await this.opts.http.send({
        method: 'POST', url: this.opts.site.url + LOGOUT_PATH, timeoutMs: 5_000,
        headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
      });
      this.log.debug({ site: this.opts.site.name, status: res.status }, 'zvm logout');
    } catch (err) {
      this.log.debug({ site: this.opts.site.name, code: (err as AppError).code }, 'zvm logout failed');
    }
  }

  private grant(strict: boolean): Grant | undefined {
    const { credentialPrefix: p, name } = this.opts.site;
    const s = this.opts.secrets;
    const secret = s.get(`${p}_CLIENT_SECRET`);
    const user = s.get(`${p}_USER`);
    const password = s.get(`${p}_PASSWORD`);
    if (secret) {
      if (user && password && !this.warnedBoth) {
        this.warnedBoth = true;
        this.log.warn({ site: name }, `${p}_CLIENT_SECRET and ${p}_USER/${p}_PASSWORD are all set; using client_credentials`);
      }
      return { kind: 'client_credentials', secret };
    }
    if (user && password) return { kind: 'password', user, password };
    if (!strict) return undefined;
    throw new AppError('auth_failed', `No credentials for Zerto site '${name}': set ${p}_USER and ${p}_PASSWORD (password grant) or ${p}_CLIENT_SECRET (client credentials).`, {
      hint: ownText('Put the credentials in the MCP client\'s env block for this server; never in config.json.'),
      details: { site: name },
    });
  }

  private async fetchToken(): Promise<CachedToken> {
    const { site } = this.opts;
    const grant = this.grant(true)!;
    // Keycloak realms may insist on the OpenID scope (Zerto's ZIC realm does); the ZVMA accepts it too.
    const form = new URLSearchParams({ client_id: site.clientId, scope: 'openid' });
    if (grant.kind === 'password') {
      form.set('grant_type', 'password');
      form.set('username', grant.user);
      form.set('password', grant.password);
    } else {
      form.set('grant_type', 'client_credentials');
      form.set('client_secret', grant.secret);
    }
    const started = this.now();
    const res = await this.opts.http.send({
      method: 'POST', url: site.url + TOKEN_PATH, timeoutMs: this.opts.timeoutMs,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    });
    if (res.status === 404) throw noTokenRoute(site.name, site.url);
    if (res.status !== 200) {
      const said = errorBodyText(res.body, header(res.headers['content-type'])) ?? 'no reason given';
      const message = redactSecrets(`Zerto site '${site.name}' refused the ${grant.kind} login for client '${site.clientId}' (HTTP ${res.status}): ${said}`, this.secretValues());
      this.log.warn({ site: site.name, status: res.status, grant: grant.kind }, 'zvm login refused');
      throw new AppError(res.status >= 500 ? 'unreachable' : 'auth_failed', message, {
        hint: grant.kind === 'password'
          ? ownText(`Check ${site.credentialPrefix}_USER / ${site.credentialPrefix}_PASSWORD and that client_id '${site.clientId}' allows the password grant.`)
          : ownText(`Check ${site.credentialPrefix}_CLIENT_SECRET and that client '${site.clientId}' is confidential with service accounts enabled.`),
        details: { site: site.name, status: res.status, grant: grant.kind },
      });
    }
    let parsed: z.infer<typeof TokenResponse>;
    try {
      parsed = TokenResponse.parse(JSON.parse(res.body.toString('utf8')));
    } catch {
      throw new AppError('auth_failed', ownText(`Zerto site '${site.name}' answered the login with something that is not a Keycloak token response.`), { details: { site: site.name } });
    }
    const lifetimeMs = (parsed.expires_in ?? 300) * 1000;
    const margin = Math.min(EXPIRY_MARGIN_MS, lifetimeMs / 4);
    this.issued.push(parsed.access_token);
    if (this.issued.length > 20) this.issued.shift();
    const token: CachedToken = { accessToken: parsed.access_token, refreshToken: parsed.refresh_token, renewAt: started + lifetimeMs - margin };
    this.cached = token;
    this.log.debug({ site: site.name, grant: grant.kind, expiresInS: lifetimeMs / 1000 }, 'zvm login');
    return token;
  }
}

/**
 * A ZVM without the Keycloak token route: a 9.x Windows ZVM authenticates with sessions
 * (POST /v1/session/add, header x-zerto-session) instead. Not a credentials problem: say so.
 */
function noTokenRoute(site: string, url: string): AppError {
  return new AppError('zerto_error', `Zerto site '${site}' has no Keycloak token route (HTTP 404 on ${TOKEN_PATH}): it is not a ZVM Appliance. A 9.x Windows ZVM authenticates with sessions (POST /v1/session/add), which this server does not speak.`, {
    retryable: false,
    hint: ownText(`Check that ${url} is the ZVM Appliance (Linux, Zerto 9.5 or later) and not a Windows ZVM or another service; the credentials were not tried.`),
    details: { site, status: 404, route: TOKEN_PATH },
  });
}

export function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Waits for `p` but gives up when `signal` aborts, leaving `p` running for other waiters. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined, site: string): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new AppError('cancelled', `The call to Zerto site '${site}' was cancelled.`, { retryable: true }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new AppError('cancelled', `The call to Zerto site '${site}' was cancelled.`, { retryable: true }));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
