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
  return `user:${subject}`;
}
