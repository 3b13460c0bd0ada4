// The appliance's Keycloak realm `zerto`, as much of it as a client needs: the token endpoint with
// the password grant (public client `zerto-client`) and client_credentials (any other client id
// with the configured secret), short lifetimes on request, Keycloak's error bodies, and logout.

import { randomBytes } from 'node:crypto';
import { sendJson, route, type Route } from './wire.js';
import type { LabZvmState } from './state.js';

export interface KeycloakOptions {
  credentials: { user: string; password: string };
  clientSecret?: string;
  tokenLifetimeSec: number;
}

export const TOKEN_ROUTE = '/auth/realms/zerto/protocol/openid-connect/token';
export const LOGOUT_ROUTE = '/auth/realms/zerto/protocol/openid-connect/logout';

export function keycloakRoutes(state: LabZvmState, opts: KeycloakOptions): Route[] {
  return [
    route('POST', TOKEN_ROUTE, ({ res, body }) => {
      if (state.behaviour.windowsSessionAuth) return sendJson(res, 404, { Message: `No HTTP resource was found that matches the request URI '${TOKEN_ROUTE}'.` });
      const form = body as URLSearchParams;
      if (state.behaviour.requireOpenidScope && !(form.get('scope') ?? '').split(' ').includes('openid')) {
        return sendJson(res, 400, { error: 'invalid_scope', error_description: 'Missing openid scope' });
      }
      const grant = form.get('grant_type');
      const clientId = form.get('client_id') ?? '';
      if (!clientId) return sendJson(res, 400, { error: 'invalid_request', error_description: 'Missing parameter: client_id' });
      if (grant === 'password') {
        if (clientId !== 'zerto-client') return sendJson(res, 401, { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' });
        if (form.get('username') !== opts.credentials.user || form.get('password') !== opts.credentials.password) {
          return sendJson(res, 401, { error: 'invalid_grant', error_description: 'Invalid user credentials' });
        }
        return issue(state, res, opts, form.get('username')!);
      }
      if (grant === 'client_credentials') {
        if (!opts.clientSecret || clientId === 'zerto-client' || form.get('client_secret') !== opts.clientSecret) {
          return sendJson(res, 401, { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' });
        }
        return issue(state, res, opts, `service-account-${clientId}`);
      }
      if (!grant) return sendJson(res, 400, { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' });
      return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' });
    }, false),
    route('POST', LOGOUT_ROUTE, ({ res }) => {
      res.writeHead(204);
      res.end();
    }, false),
  ];
}

function issue(state: LabZvmState, res: Parameters<Route['handle']>[0]['res'], opts: KeycloakOptions, principal: string): void {
  // JWT-looking but opaque: nothing in a client may depend on decoding it.
  const token = `eyJ${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
  state.tokens.set(token, { expiresAt: Date.now() + opts.tokenLifetimeSec * 1000, epoch: state.behaviour.tokenEpoch, principal });
  sendJson(res, 200, {
    access_token: token, expires_in: opts.tokenLifetimeSec, refresh_expires_in: 1800,
    refresh_token: `eyJ${randomBytes(32).toString('base64url')}`, token_type: 'Bearer', 'not-before-policy': 0,
    session_state: randomBytes(8).toString('hex'), scope: 'profile email',
  });
}

/** The principal a valid bearer token belongs to, or null. */
export function checkBearer(state: LabZvmState, authorization: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
  if (!m) return null;
  const t = state.tokens.get(m[1]!);
  if (!t || t.expiresAt <= Date.now() || t.epoch !== state.behaviour.tokenEpoch) return null;
  return t.principal;
}
