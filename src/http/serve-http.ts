// HTTP mode's entry: the runtime's tools served over Streamable HTTP with bearer-token auth.
// main.ts imports this module dynamically, so stdio never loads it (nor jose).
import type { Runtime } from '../runtime.js';
import type { Logger } from '../core/logger.js';
import { startMcpHttp, type McpHttpHandle } from './mcp-http-server.js';
import { TokenVerifier } from './token-verifier.js';
import type { HttpConfig } from './http-config.js';

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
    host: config.host, port: config.port, ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    ...(auth ? { auth } : {}), scopeOfTool, newSession: () => runtime.built.newSession(), logger,
  });
  if (!auth) logger.warn({ url: handle.resourceUrl }, 'serving MCP over HTTP WITHOUT authentication (--insecure-local, loopback only)');
  logger.info({ url: handle.resourceUrl, auth: auth ? auth.issuer : 'none' }, 'MCP Streamable HTTP endpoint listening');
  return handle;
}
