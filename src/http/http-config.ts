// HTTP mode's settings, from the environment (and --insecure-local). Refuses what would serve
// vCenter changes to anyone who can reach the port: no issuer means no authentication, which is
// only allowed on loopback with an explicit --insecure-local.
import { isIP } from 'node:net';

export interface HttpConfig {
  host: string;
  port: number;
  publicUrl?: string;
  insecureLocal: boolean;
  oauth?: { issuer: string; jwksUrl?: string; audience?: string; userClaim?: string; groupsClaim?: string };
}

export function isHttpMode(flag: boolean, env: Record<string, string | undefined>): boolean {
  return flag || env.MCP_TRANSPORT?.toLowerCase() === 'http';
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
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
    if (!isLoopback(host)) throw new Error(`--insecure-local serves without authentication, so it binds only to loopback; MCP_HTTP_HOST is '${host}'. Set OAUTH_ISSUER instead.`);
  }
  const publicUrl = env.MCP_PUBLIC_URL?.trim();
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) throw new Error(`MCP_PUBLIC_URL '${publicUrl}' must start with https:// (or http:// on a trusted network).`);
  return {
    host, port, insecureLocal,
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
