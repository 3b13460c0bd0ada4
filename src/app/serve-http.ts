// HTTP mode's entry: the runtime's tools served over Streamable HTTP (both protocol eras) with
// bearer-token auth.
// main.ts imports this module dynamically, so stdio never loads it (nor jose).
import type { Runtime } from './runtime.js';
import type { Logger } from '../core/logger.js';
import { startMcpHttp, type McpHttpHandle } from '../mcp/http/mcp-http-server.js';
import { TokenVerifier } from '../mcp/http/token-verifier.js';
import { missingResourceWarning, type HttpConfig } from '../mcp/http/http-config.js';
import { healthRoute, type ReadinessCheck } from '../mcp/http/health.js';

export async function serveHttp(runtime: Runtime, config: HttpConfig, logger: Logger): Promise<McpHttpHandle> {
  const scopeOfTool = runtime.scopeOfTool;
  const oauth = config.oauth;
  const auth = oauth && {
    issuer: oauth.issuer,
    // RFC 8707: the token must be for this resource (OAUTH_AUDIENCE when the IdP puts a client id there).
    verifierFor: (resourceUrl: string) => new TokenVerifier({
      issuer: oauth.issuer,
      audience: oauth.audience ?? resourceUrl,
      ...(oauth.jwksUrl ? { jwksUrl: oauth.jwksUrl } : {}),
      ...(oauth.userClaim ? { userClaim: oauth.userClaim } : {}),
      ...(oauth.groupsClaim ? { groupsClaim: oauth.groupsClaim } : {}),
    }),
  };
  const handle = await startMcpHttp({
    host: config.host, port: config.port, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}), allowedHosts: config.allowedHosts,
    ...(auth ? { auth } : {}), scopeOfTool, newSession: () => runtime.built.newSession(),
    onToolListChanged: (listener) => runtime.built.onToolListChanged(listener), logger,
    extraRoute: healthRoute({ checks: readinessChecks(runtime) }),
    // One wait from the start, not one per request: a downstream that never lists costs a
    // tools/list nothing once downstream_first_listing_ms has passed.
    firstListing: runtime.firstListing().catch(() => undefined),
  });
  const unnamed = missingResourceWarning(config, handle.resourceUrl);
  if (unnamed) logger.warn({ resource: handle.resourceUrl }, unnamed);
  if (!auth) logger.warn({ url: handle.resourceUrl }, 'serving MCP over HTTP WITHOUT authentication (--insecure-local, loopback only)');
  logger.info({ url: handle.resourceUrl, auth: auth ? auth.issuer : 'none' }, 'MCP Streamable HTTP endpoint listening');
  return handle;
}

/** Ready: the policy in force loads (a broken edit fails every change closed), and the database answers in central mode. */
function readinessChecks(runtime: Runtime): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{
    name: 'configuration',
    check: () => Promise.resolve(runtime.built.services.policy.current().ok ? undefined : 'the policy file does not load (the server log says why)'),
  }];
  const db = runtime.central?.db;
  if (db) checks.push({ name: 'database', check: async () => { await db.query('SELECT 1'); return undefined; } });
  return checks;
}
