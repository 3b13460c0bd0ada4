// Who is calling, when a verified bearer token says so (HTTP mode). The HTTP layer puts it in the
// SDK's AuthInfo.extra; the tools see it on the CallContext. Without a token (stdio) there is no
// principal and the identity is whatever the MCP client calls itself.

export interface Principal {
  /** The audit and tag identity: `user:<subject>`. */
  identity: string;
  /** The token's subject (the claim OAUTH_USER_CLAIM names; `sub` by default). */
  subject: string;
  groups: string[];
  scopes: string[];
}

interface AuthInfoLike {
  extra?: Record<string, unknown>;
}

export function principalOf(auth: AuthInfoLike | undefined): Principal | undefined {
  const p = auth?.extra?.principal as Principal | undefined;
  return p && typeof p.identity === 'string' ? p : undefined;
}

/** `user:alice` for subject `alice`: a verified user never reads like a client name. */
export function userIdentity(subject: string): string {
  return `${USER_PREFIX}${subject}`;
}

/**
 * True for an identity only a verified token or ID token can produce. The other forms are
 * namespaced away from it: an MCP client's own name is `mcp:<name>/<version>` (core/identity.ts),
 * a token-mode dashboard approver is `web-ui@<addr> (<name>)` with no ':' allowed in the name.
 */
export function isVerifiedIdentity(identity: string): boolean {
  return identity.startsWith(USER_PREFIX) && identity.length > USER_PREFIX.length;
}

const USER_PREFIX = 'user:';
