// HTTP mode's settings, from the environment (and --insecure-local). Refuses what would serve
// vCenter changes to anyone who can reach the port: no issuer means no authentication, which is
// only allowed on loopback with an explicit --insecure-local.
import { isLoopbackHost } from '../../core/loopback.js';
import { SCOPES } from '../../core/scopes.js';
import type { DashboardSignInConfig } from '../../dashboard/oidc.js';
import { estimatedBits, MIN_TOKEN_BITS } from '../../dashboard/auth.js';

/** WEB_UI_SESSION_SECRET seals sign-in cookies: as long as a random 16-byte hex string, at least. */
const MIN_SESSION_SECRET_LENGTH = 32;

/** What the dashboard asks the IdP for when WEB_UI_OIDC_SCOPE is unset (dashboard/oidc.ts). */
const DEFAULT_SIGN_IN_SCOPE = ['openid', 'profile', ...SCOPES].join(' ');

export interface HttpConfig {
  host: string;
  port: number;
  publicUrl?: string;
  /** Further Host names clients reach the endpoint by (MCP_ALLOWED_HOSTS, `name` or `name:port`). */
  allowedHosts: string[];
  insecureLocal: boolean;
  oauth?: { issuer: string; jwksUrl?: string; audience?: string; userClaim?: string; groupsClaim?: string };
  /** The dashboard's OIDC sign-in (WEB_UI_OIDC_CLIENT_ID set): same issuer, its own client. */
  dashboardSignIn?: DashboardSignInConfig;
}

/**
 * Why team mode (an issuer) runs without a configured resource, or undefined when it has one: tokens
 * are then checked against the listen address's /mcp, which clients reaching the server by any
 * other name (a proxy, a DNS name) cannot know, and the dashboard cannot sign people in.
 */
export function missingResourceWarning(config: HttpConfig, listenResourceUrl: string): string | undefined {
  if (!config.oauth || config.publicUrl || config.oauth.audience) return undefined;
  return `neither MCP_PUBLIC_URL nor OAUTH_AUDIENCE is set: access tokens must carry aud=${listenResourceUrl} (the listen address), so clients ` +
    'that reach this server through a proxy or by another name are refused, and the dashboard cannot sign people in to approve. ' +
    'Set MCP_PUBLIC_URL to the URL clients use (e.g. https://mcp.example.com).';
}

export function isHttpMode(flag: boolean, env: Record<string, string | undefined>): boolean {
  return flag || env.MCP_TRANSPORT?.toLowerCase() === 'http';
}

export function loadHttpConfig(env: Record<string, string | undefined>, insecureLocal: boolean): HttpConfig {
  const host = env.MCP_HTTP_HOST || '127.0.0.1';
  const port = Number(env.MCP_HTTP_PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`MCP_HTTP_PORT '${env.MCP_HTTP_PORT}' is not a port number (0-65535).`);
  const issuer = env.OAUTH_ISSUER?.trim();
  if (!issuer) {
    if (!insecureLocal) {
      throw new Error('HTTP mode needs authentication: set OAUTH_ISSUER (your IdP, e.g. https://keycloak.example/realms/ops). ' +
        'For a local trial only, bind to loopback and pass --insecure-local.');
    }
    if (!isLoopbackHost(host)) throw new Error(`--insecure-local serves without authentication, so it binds only to loopback; MCP_HTTP_HOST is '${host}'. Set OAUTH_ISSUER instead.`);
  }
  const publicUrl = env.MCP_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) throw new Error(`MCP_PUBLIC_URL '${publicUrl}' must start with https:// (or http:// on a trusted network).`);
  const resource = env.OAUTH_AUDIENCE?.trim() || (publicUrl ? `${publicUrl.replace(/\/$/, '')}/mcp` : undefined);
  const dashboardSignIn = issuer ? loadDashboardSignIn(env, issuer, resource) : undefined;
  if (!issuer && env.WEB_UI_OIDC_CLIENT_ID?.trim()) {
    throw new Error('WEB_UI_OIDC_CLIENT_ID is set but OAUTH_ISSUER is not: the dashboard signs people in with the issuer of the MCP tokens. Set OAUTH_ISSUER, or unset WEB_UI_OIDC_CLIENT_ID.');
  }
  const allowedHosts = (env.MCP_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean);
  return {
    host, port, insecureLocal, allowedHosts,
    ...(dashboardSignIn ? { dashboardSignIn } : {}),
    ...(publicUrl ? { publicUrl } : {}),
    ...(issuer ? {
      oauth: {
        issuer,
        ...(env.OAUTH_JWKS_URL ? { jwksUrl: env.OAUTH_JWKS_URL } : {}),
        ...(env.OAUTH_AUDIENCE ? { audience: env.OAUTH_AUDIENCE } : {}),
        ...(env.OAUTH_USER_CLAIM ? { userClaim: env.OAUTH_USER_CLAIM } : {}),
        ...(env.OAUTH_GROUPS_CLAIM ? { groupsClaim: env.OAUTH_GROUPS_CLAIM } : {}),
      },
    } : {}),
  };
}

/** WEB_UI_OIDC_*: the dashboard as a client of the same IdP. The secret is read here and never logged. */
function loadDashboardSignIn(env: Record<string, string | undefined>, issuer: string, resource: string | undefined): DashboardSignInConfig | undefined {
  const clientId = env.WEB_UI_OIDC_CLIENT_ID?.trim();
  if (!clientId) return undefined;
  const publicUrl = env.WEB_UI_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\/[^/]/.test(publicUrl)) throw new Error(`WEB_UI_PUBLIC_URL '${publicUrl}' must be an https:// URL (where browsers reach the dashboard).`);
  const secret = env.WEB_UI_OIDC_CLIENT_SECRET;
  const sessionSecret = env.WEB_UI_SESSION_SECRET || undefined;
  if (sessionSecret !== undefined && (sessionSecret.length < MIN_SESSION_SECRET_LENGTH || estimatedBits(sessionSecret) < MIN_TOKEN_BITS)) {
    // The length only, never the value.
    throw new Error(`WEB_UI_SESSION_SECRET is too short or too predictable (${sessionSecret.length} characters; at least ${MIN_SESSION_SECRET_LENGTH} random ones are required). Use e.g. WEB_UI_SESSION_SECRET=$(openssl rand -hex 32), the same on every instance.`);
  }
  const scope = env.WEB_UI_OIDC_SCOPE?.trim() || DEFAULT_SIGN_IN_SCOPE;
  if (!scope.split(' ').includes('openid')) throw new Error(`WEB_UI_OIDC_SCOPE '${scope}' must include 'openid' (the sign-in needs an ID token).`);
  // Refused, not warned: the session's scopes come only from an access token for the MCP resource,
  // so without one nobody signed in could see or approve anything. That is never what was meant.
  if (!resource) {
    throw new Error('WEB_UI_OIDC_CLIENT_ID is set but neither MCP_PUBLIC_URL nor OAUTH_AUDIENCE is: the dashboard would not know the MCP resource to ask ' +
      'the identity provider for, so signed-in people would get no MCP scopes and nobody could approve. Set MCP_PUBLIC_URL to the URL clients reach ' +
      '(e.g. https://mcp.example.com), or OAUTH_AUDIENCE to what your IdP puts in aud; see docs/identity-providers.md.');
  }
  return {
    issuer, clientId, scope, resource,
    ...(secret ? { clientSecret: secret } : {}),
    ...(sessionSecret ? { sessionSecret } : {}),
    ...(publicUrl ? { publicUrl } : {}),
    ...(env.OAUTH_USER_CLAIM ? { userClaim: env.OAUTH_USER_CLAIM } : {}),
    ...(env.OAUTH_GROUPS_CLAIM ? { groupsClaim: env.OAUTH_GROUPS_CLAIM } : {}),
  };
}
