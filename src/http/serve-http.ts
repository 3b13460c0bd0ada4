// HTTP mode's entry: the runtime's tools served over Streamable HTTP (both protocol eras) with
// bearer-token auth.
// main.ts imports this module dynamically, so stdio never loads it (nor jose).
import type { Runtime } from '../runtime.js';
import type { Logger } from '../core/logger.js';
import { requiredScope, type Scope } from '../core/scopes.js';
import { startMcpHttp, type McpHttpHandle } from '../mcp/mcp-http-server.js';
import { TokenVerifier } from './token-verifier.js';
import type { HttpConfig } from './http-config.js';

export async function serveHttp(runtime: Runtime, config: HttpConfig, logger: Logger): Promise<McpHttpHandle> {
  const byName = new Map(runtime.built.tools.map((t) => [t.name, t]));
  const scopeOfTool = (name: string): Scope | undefined => {
    // The proposal's own scope is checked again by the pipeline when it runs.
    if (name === 'confirm_action' || name === 'cancel_action') return 'vsphere:change';
    const tool = byName.get(name);
    return tool ? requiredScope(tool) : undefined;
  };
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
  });
  if (!auth) logger.warn({ url: handle.resourceUrl }, 'serving MCP over HTTP WITHOUT authentication (--insecure-local, loopback only)');
  logger.info({ url: handle.resourceUrl, auth: auth ? auth.issuer : 'none' }, 'MCP Streamable HTTP endpoint listening');
  return handle;
}
