// Who may use the dashboard, behind one interface for its two sign-in modes: the WEB_UI_TOKEN of
// the embedded server (token-gate in this file), or OpenID Connect sign-in in HTTP mode
// (oidc-gate.ts). server.ts asks the gate before any page, asset or API route is served.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../core/principal.js';
import { createAuthenticator } from './auth.js';
import { clientAddress, sendText } from './http.js';
import type { Logger } from '../core/logger.js';
import type { LogThrottle } from './log-throttle.js';

/** A request the gate let through. */
export interface Admission {
  /** The verified user (OIDC mode); absent in token mode, where the approver is the client address. */
  user?: { principal: Principal; name: string };
  /** Called before the page itself is sent (token mode hands out its asset cookie here). */
  onPage?: (res: ServerResponse) => void;
}

export interface RequestGate {
  /** The gate's own routes (OIDC: /auth/login, /auth/callback, /auth/logout); true when answered. */
  serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** Lets the request through, or answers the refusal itself and returns undefined. */
  admit(req: IncomingMessage, res: ServerResponse, url: URL, isApi: boolean): Promise<Admission | undefined>;
}

export interface GateContext {
  logger: Logger;
  /** Logs a refusal, throttled: a scanner must not flood the log. */
  logRefusal(obj: object, msg: string): void;
}

export function refusalLogger(throttle: LogThrottle, logger: Logger): GateContext['logRefusal'] {
  return (obj, msg) => {
    const t = throttle.take();
    if (t.suppressed !== undefined) logger.warn({ suppressed: t.suppressed }, 'dashboard refused more requests than it logs; those were counted, not logged');
    if (t.log) logger.warn(obj, msg);
  };
}

/** WEB_UI_TOKEN mode (stdio and embedded runs): unchanged from before OIDC sign-in existed. */
export function createTokenGate(token: string, ctx: GateContext): RequestGate {
  const auth = createAuthenticator(token);
  return {
    serve: async () => false,
    async admit(req, res, url, isApi) {
      const presented = auth.checkToken(req, url);
      // The API takes the token only; the asset cookie opens the page shell and its files, nothing
      // else. A wrong token is refused even next to a valid cookie: an explicit bad credential is a
      // bug or an attack, not something to paper over.
      const authorized = presented.ok || (!isApi && presented.source === undefined && auth.checkAssetCookie(req));
      if (!authorized) {
        // Path only: the query may hold a (wrong) token, and logs must not collect guesses or typos.
        ctx.logRefusal({ path: url.pathname.slice(0, 200), client: clientAddress(req), presented: presented.source ?? 'none' }, 'dashboard refused an unauthenticated request');
        sendText(res, 401, 'Unauthorized');
        return undefined;
      }
      return presented.ok ? { onPage: (r) => r.setHeader('Set-Cookie', auth.assetCookieHeader()) } : {};
    },
  };
}
