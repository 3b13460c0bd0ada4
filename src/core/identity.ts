// Who made a call, in a form no caller can forge. An MCP client names itself (clientInfo), so that
// name is untrusted: it is namespaced `mcp:<name>/<version>` and reduced to a small alphabet, so a
// client calling itself `web-ui@127.0.0.1 (alice)` can neither equal nor resemble a dashboard
// approver's identity (`web-ui@<addr> (<name>)`, built by the dashboard from the socket address).
// Every audit line also says which door the call came through (`via`), so provenance does not
// rest on reading the identity string.

import { USER_PREFIX } from './principal.js';

export type Via = 'mcp' | 'web';

const MCP_PREFIX = 'mcp:';
const MAX_PART = 60;

/** Letters, digits, `.`, `_` and `-` kept; every other run of characters becomes one `_`. */
export function cleanIdentityPart(value: string, max = MAX_PART): string {
  const cleaned = value.normalize('NFKC').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, max);
  return cleaned || '_';
}

/** The audit identity of an MCP client from what it said in initialize. */
export function mcpIdentity(client: { name?: string; version?: string } | undefined): string {
  if (!client?.name) return `${MCP_PREFIX}unknown-client`;
  return `${MCP_PREFIX}${cleanIdentityPart(client.name)}/${cleanIdentityPart(client.version ?? '', 30)}`;
}

/**
 * The agent name a checkpoint tag records: the identity without its version (`mcp:claude-desktop`),
 * plus the caller's own `agent` label when it gave one (`mcp:claude-desktop+nightly-job`), reduced
 * to the same alphabet. A dashboard approver's identity becomes `web:<addr>_<name>`, a verified
 * user's stays `user:<subject>`.
 */
export function tagAgentOf(identity: string, label?: string): string {
  const base = identity.startsWith(MCP_PREFIX)
    ? `${MCP_PREFIX}${identity.slice(MCP_PREFIX.length).split('/')[0]}`
    // A verified user (HTTP mode, over MCP or signed in to the dashboard) keeps its `user:` name.
    : identity.startsWith(USER_PREFIX)
      ? `${USER_PREFIX}${cleanIdentityPart(identity.slice(USER_PREFIX.length))}`
      : `web:${cleanIdentityPart(identity.replace(/^web-ui@/, ''))}`;
  return label ? `${base}+${cleanIdentityPart(label, 40)}` : base;
}
