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

/** How every verified identity begins (userIdentity); nothing else may. */
export const USER_PREFIX = 'user:';

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

/**
 * The groups a token or ID token names in `claim` (default `groups`): strings only, and without a
 * leading slash, since Keycloak's group mapper may send full paths ('/ops') and policy names
 * groups without it. One reading for bearer tokens and the dashboard's sign-in.
 */
export function groupsOf(claims: Record<string, unknown>, claim = 'groups'): string[] {
  const raw = claims[claim];
  return Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string').map((g) => g.replace(/^\//, '')) : [];
}
