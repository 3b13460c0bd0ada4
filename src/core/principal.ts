// Who is calling, when a verified bearer token says so (HTTP mode). The HTTP layer puts it in the
// SDK's AuthInfo.extra; the tools see it on the CallContext. Without a token (stdio) there is no
// principal and the identity is whatever the MCP client calls itself.

export interface Principal {
  /** The audit and tag identity: `user:<subject>`, or `service:<client id>` for a client-credentials token. */
  identity: string;
  /** The token's subject (the claim OAUTH_USER_CLAIM names; `sub` by default). */
  subject: string;
  /** Undefined when the token carried no groups claim at all: unknown, which a group rule denies. */
  groups: string[] | undefined;
  scopes: string[];
  /** `service`: a client acting for itself (client credentials), never a person. */
  kind?: 'user' | 'service';
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
/** How a verified service (client-credentials token) identity begins: a service is not a person. */
export const SERVICE_PREFIX = 'service:';

export function serviceIdentity(clientId: string): string {
  return `${SERVICE_PREFIX}${clientId}`;
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

/**
 * The groups a token or ID token names in `claim` (default `groups`): strings only, and without a
 * leading slash, since Keycloak's group mapper may send full paths ('/ops') and policy names
 * groups without it. One reading for bearer tokens and the dashboard's sign-in.
 */
export function groupsOf(claims: Record<string, unknown>, claim = 'groups'): string[] | undefined {
  const raw = claims[claim];
  if (raw === undefined || raw === null) return undefined;
  return Array.isArray(raw) ? raw.filter((g): g is string => typeof g === 'string').map((g) => g.replace(/^\//, '')) : [];
}

/**
 * True for a token a client obtained for itself (client credentials): RFC 9068 section 2.2 has
 * its `sub` name the client, Entra ID marks it `idtyp: app`, Keycloak names its user
 * `service-account-<client>`. Such a caller is a service, never a person who can approve.
 */
export function isServiceToken(claims: Record<string, unknown>, subject: string): boolean {
  const client = typeof claims['client_id'] === 'string' ? claims['client_id'] : typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
  if (client !== undefined && subject === client) return true;
  if (claims['idtyp'] === 'app') return true;
  const username = claims['preferred_username'];
  return typeof username === 'string' && username.startsWith('service-account-');
}

export interface ClaimNames {
  /** Claim naming the user (default `sub`). */
  userClaim?: string;
  /** Claim listing the groups (default `groups`). */
  groupsClaim?: string;
}

/**
 * The principal a verified access token names: its subject, scopes (`scope` or `scp`), groups
 * (undefined when the token has no groups claim) and whether it is a person or a service. One
 * reading for the MCP endpoint's bearer tokens and the dashboard's sign-in. Undefined: no subject.
 */
export function principalFromClaims(claims: Record<string, unknown>, names: ClaimNames = {}): Principal | undefined {
  const subject = claims[names.userClaim ?? 'sub'];
  if (typeof subject !== 'string' || subject === '') return undefined;
  const service = isServiceToken(claims, subject);
  return {
    identity: service ? serviceIdentity(subject) : userIdentity(subject),
    subject,
    groups: groupsOf(claims, names.groupsClaim),
    scopes: scopesOf(claims),
    kind: service ? 'service' : 'user',
  };
}

function scopesOf(claims: Record<string, unknown>): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter(Boolean);
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  return [];
}
