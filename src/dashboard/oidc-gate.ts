// OIDC sign-in mode of the dashboard (HTTP mode with an issuer): /auth/login sends the browser to
// the identity provider, /auth/callback turns its answer into a sealed session cookie, /auth/logout
// ends it. Every other request needs a live session; the approver is then the verified
// `user:<sub>`, never a typed name. Any instance serves any step (sessions.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crossSiteRejection } from './csrf.js';
import { clientAddress, readCookie, sendError, sendJson, sendText } from './http.js';
import type { GateContext, RequestGate } from './gate.js';
import { CALLBACK_PATH, SignInError, createRelyingParty, type DashboardSignInConfig, type OidcRelyingParty } from './oidc.js';
import { isLoopbackHost } from '../core/loopback.js';
import {
  DashboardSessions, LOGIN_COOKIE, LOGIN_COOKIE_MAX_AGE_S, SESSION_COOKIE, SESSION_COOKIE_MAX_AGE_S, SessionTooLarge, cookieHeader,
} from './sessions.js';
import type { SignInRevocations } from './sign-in-revocations.js';

const LOGIN_PATH = '/auth/login';
const LOGOUT_PATH = '/auth/logout';

export interface OidcGateOptions {
  rp: OidcRelyingParty;
  /** The dashboard's public base URL (with a trailing slash): where the callback sends the browser. */
  base: string;
  /** Set the Secure attribute (false only for plain http on loopback). */
  secureCookies: boolean;
  sessions?: DashboardSessions;
}

export function createOidcGate(opts: OidcGateOptions, ctx: GateContext): RequestGate {
  const sessions = opts.sessions ?? new DashboardSessions();
  const cookie = (name: string, value: string, maxAgeSeconds: number, path = '/') =>
    cookieHeader(name, value, { secure: opts.secureCookies, maxAgeSeconds, path });
  // The pending-login cookie goes only to the callback, on the path the browser sees: behind a
  // proxy that serves the dashboard under a prefix (WEB_UI_PUBLIC_URL=https://x/approvals/) that
  // is /approvals/auth/, not the /auth/ this server is asked for.
  const authPath = `${new URL(opts.base).pathname}auth/`;

  async function login(res: ServerResponse): Promise<void> {
    let request: Awaited<ReturnType<OidcRelyingParty['authorizationRequest']>>;
    try {
      request = await opts.rp.authorizationRequest();
    } catch (err) {
      // Discovery failed: the IdP is down or OAUTH_ISSUER is wrong. Retried on the next sign-in.
      ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'dashboard sign-in: the identity provider cannot be reached');
      sendText(res, 502, 'The identity provider cannot be reached right now, so nobody can sign in. Try again in a moment; if it persists, check OAUTH_ISSUER and the IdP.');
      return;
    }
    const id = sessions.startLogin({ state: request.state, nonce: request.nonce, codeVerifier: request.codeVerifier });
    res.setHeader('Set-Cookie', cookie(LOGIN_COOKIE, id, LOGIN_COOKIE_MAX_AGE_S, authPath));
    res.statusCode = 302;
    res.setHeader('Location', request.url.href);
    res.end();
  }

  /**
   * `op`'s result, or undefined once answered 503: the sign-in records (the database, in central
   * mode) cannot be reached, so nobody is let in and no sign-out is claimed.
   */
  async function withRecords<T>(res: ServerResponse, what: 'sign-in' | 'sign-out' | 'session', op: () => Promise<T>): Promise<{ value: T } | undefined> {
    try {
      return { value: await op() };
    } catch (err) {
      ctx.logger.warn({ err: err instanceof Error ? err.message : String(err) }, `dashboard ${what}: the sign-in records cannot be reached`);
      const message = `The ${what} cannot be checked right now (the shared database does not answer). Try again in a moment.`;
      if (what === 'sign-in') sendText(res, 503, message);
      else sendJson(res, 503, { error: { code: 'unavailable', message } });
      return undefined;
    }
  }

  async function callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const taken = await withRecords(res, 'sign-in', () => sessions.takeLogin(req));
    if (!taken) return;
    const attempt = taken.value;
    const clearLogin = cookie(LOGIN_COOKIE, '', 0, authPath);
    if (!attempt) {
      res.setHeader('Set-Cookie', clearLogin);
      ctx.logRefusal({ client: clientAddress(req) }, 'dashboard sign-in callback without a pending login (expired, replayed, or another browser)');
      sendText(res, 400, `Sign-in failed: this browser has no pending sign-in (it expired, was already used, or started elsewhere). Open ${opts.base} to sign in again.`);
      return;
    }
    // The callback URL as the IdP was told it (the public one): openid-client derives the
    // redirect_uri of the code exchange from it.
    const current = new URL(opts.rp.redirectUri);
    current.search = url.search;
    try {
      const user = await opts.rp.finish(current, attempt);
      const id = sessions.create(user.principal, user.name);
      res.setHeader('Set-Cookie', [clearLogin, cookie(SESSION_COOKIE, id, SESSION_COOKIE_MAX_AGE_S)]);
      ctx.logger.info({ identity: user.principal.identity, client: clientAddress(req) }, 'dashboard sign-in');
      res.statusCode = 303;
      res.setHeader('Location', opts.base);
      res.end();
    } catch (err) {
      if (!(err instanceof SignInError) && !(err instanceof SessionTooLarge)) throw err;
      res.setHeader('Set-Cookie', clearLogin);
      ctx.logRefusal({ client: clientAddress(req), reason: err.message }, 'dashboard sign-in refused');
      sendText(res, 400, `Sign-in failed: ${err.message}. Open ${opts.base} to sign in again.`);
    }
  }

  async function logout(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rejection = crossSiteRejection(req);
    if (rejection !== undefined) {
      ctx.logRefusal({ path: LOGOUT_PATH, reason: rejection, client: clientAddress(req) }, 'dashboard refused a cross-site write');
      sendError(res, 403, 'forbidden', 'Cross-site request refused.');
      return;
    }
    // Not recorded means another instance would still honour the cookie: then no "signed out".
    const ended = await withRecords(res, 'sign-out', () => sessions.end(req));
    if (!ended) return;
    const who = ended.value;
    if (who) ctx.logger.info({ identity: who.principal.identity }, 'dashboard sign-out');
    res.setHeader('Set-Cookie', cookie(SESSION_COOKIE, '', 0));
    const endSession = await opts.rp.endSessionUrl(opts.base);
    sendJson(res, 200, { signed_out: true, ...(endSession ? { end_session_url: endSession } : {}) });
  }

  return {
    async serve(req, res, url) {
      const path = url.pathname;
      if (path === LOGIN_PATH || path === CALLBACK_PATH) {
        if (req.method !== 'GET') {
          res.setHeader('Allow', 'GET');
          sendText(res, 405, 'Method not allowed');
        } else if (path === LOGIN_PATH) await login(res);
        else await callback(req, res, url);
        return true;
      }
      if (path === LOGOUT_PATH) {
        if (req.method !== 'POST') {
          res.setHeader('Allow', 'POST');
          sendText(res, 405, 'Method not allowed');
        } else await logout(req, res);
        return true;
      }
      return false;
    },

    async admit(req, res, url, isApi) {
      const looked = await withRecords(res, 'session', () => sessions.lookup(req));
      if (!looked) return undefined;
      const found = looked.value;
      if (found) {
        if (found.renewed) res.setHeader('Set-Cookie', cookie(SESSION_COOKIE, found.renewed.value, found.renewed.maxAgeSeconds));
        return { user: { principal: found.session.principal, name: found.session.name } };
      }
      const presented = readCookie(req.headers.cookie, SESSION_COOKIE) !== undefined;
      const isPage = req.method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html');
      // Opening the page before signing in is the normal start, not a refusal worth a log line.
      if (presented || !isPage) {
        ctx.logRefusal({ path: url.pathname.slice(0, 200), client: clientAddress(req), presented: presented ? 'unknown or ended session' : 'none' }, 'dashboard refused a request without a signed-in session');
      }
      if (isApi) {
        sendJson(res, 401, { error: { code: 'signin_required', message: 'Sign in first (your session ended or never existed).' }, sign_in: 'auth/login' });
      } else if (isPage) {
        // The page itself: straight to the identity provider (relative, so a path prefix survives).
        res.statusCode = 302;
        res.setHeader('Location', 'auth/login');
        res.end();
      } else {
        sendText(res, 401, 'Unauthorized');
      }
      return undefined;
    },
  };
}

/**
 * The OIDC gate for a dashboard listening at `listenUrl`: its public base is WEB_UI_PUBLIC_URL, else
 * that address. Refuses a plain-http public URL beyond loopback: the session cookie would cross
 * the network in clear text (and browsers drop a Secure cookie over http).
 */
export function startOidcGate(cfg: DashboardSignInConfig, listenUrl: string, ctx: GateContext, revocations?: SignInRevocations): { gate: RequestGate; base: string; publicHost: string } {
  const base = withSlash(cfg.publicUrl ?? listenUrl);
  const parsed = new URL(base);
  if (parsed.protocol !== 'https:' && !isLoopbackHost(parsed.hostname)) {
    throw new Error(`The dashboard signs people in, so it must be reached over https: WEB_UI_PUBLIC_URL is '${base}'. Put TLS in front (a reverse proxy) and set WEB_UI_PUBLIC_URL=https://...`);
  }
  const rp = createRelyingParty(cfg, base);
  ctx.logger.info({ redirect_uri: rp.redirectUri, client_id: cfg.clientId, issuer: cfg.issuer }, 'dashboard signs people in with the identity provider');
  const secret = cfg.sessionSecret ?? cfg.clientSecret;
  const sessions = new DashboardSessions({ clientId: cfg.clientId, ...(secret !== undefined ? { secret } : {}), ...(revocations ? { revocations } : {}) });
  if (revocations && !sessions.sharedAcrossInstances) {
    // Central mode with a public client and no WEB_UI_SESSION_SECRET: nothing to derive shared keys from.
    ctx.logger.warn({}, 'dashboard sign-ins hold on this instance only: set WEB_UI_SESSION_SECRET (the same on every instance) so that any instance honours them');
  }
  return { gate: createOidcGate({ rp, base, secureCookies: parsed.protocol === 'https:', sessions }, ctx), base, publicHost: parsed.host };
}

function withSlash(u: string): string {
  return u.endsWith('/') ? u : `${u}/`;
}
