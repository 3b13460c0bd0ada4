// Re-exported names: `<server>__<tool>`, which must match ^[a-zA-Z0-9_-]{1,64}$ (the pattern every
// client accepts). Collisions are ruled out from the configuration alone, before any downstream
// runs, so they refuse startup without waiting for a server: a server name holds no `__` and does
// not end in `_` (then `<a>__<x>` can never equal `<b>__<y>` for two servers a and b), and no own
// tool starts with `<server>__`. What only a running server can tell (an invalid tool name, one it
// lists twice) leaves that tool out, logged and shown by list_downstream; the rest is exposed.
import type { DownstreamServerConfig } from '../config/downstream-config.js';

export const EXPORTED_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const SEPARATOR = '__';

export function exportedName(server: string, tool: string): string {
  return `${server}${SEPARATOR}${tool}`;
}

export interface NamedTool {
  server: string;
  tool: string;
}

export interface NamingProblem {
  server: string;
  tool: string;
  reason: string;
}

/**
 * Checks every (server, tool) pair against the name pattern, the other downstream tools and the
 * names already taken (this server's own tools). Returns one problem per refused pair.
 */
export function namingProblems(tools: NamedTool[], taken: ReadonlySet<string>): NamingProblem[] {
  const problems: NamingProblem[] = [];
  const owner = new Map<string, NamedTool>();
  for (const t of tools) {
    const name = exportedName(t.server, t.tool);
    if (!EXPORTED_NAME.test(name)) {
      problems.push({ ...t, reason: invalidReason(name, t.server, t.tool) });
      continue;
    }
    if (taken.has(name)) {
      problems.push({ ...t, reason: `'${name}' is already one of this server's own tools; rename downstream '${t.server}'` });
      continue;
    }
    const first = owner.get(name);
    if (first) {
      problems.push({ ...t, reason: first.server === t.server
        ? `'${t.server}' lists the tool '${t.tool}' twice; only the first is exposed`
        : `'${name}' would name both '${first.server}' tool '${first.tool}' and '${t.server}' tool '${t.tool}'; rename one of the servers or leave one tool out with tools: [...]` });
      continue;
    }
    owner.set(name, t);
  }
  return problems;
}

/**
 * The checks that need no running server: server names that keep every exported name apart,
 * unique servers, no own tool in a server's namespace, and valid names for allowlisted tools.
 */
export function configNamingProblems(configs: readonly DownstreamServerConfig[], ownTools: ReadonlySet<string>): NamingProblem[] {
  const problems: NamingProblem[] = [];
  const seen = new Set<string>();
  for (const c of configs) {
    const server = c.name;
    if (seen.has(server)) problems.push({ server, tool: '(server)', reason: `two downstream servers are named '${server}'; give each its own name` });
    seen.add(server);
    if (server.includes(SEPARATOR) || server.endsWith('_')) {
      problems.push({ server, tool: '(server)', reason: `the server name may not contain '${SEPARATOR}' nor end in '_' (its tools' names would run into another server's); rename it` });
    }
    for (const own of ownTools) {
      if (own.startsWith(`${server}${SEPARATOR}`)) problems.push({ server, tool: own, reason: `this server's own tool '${own}' is in the '${server}${SEPARATOR}' namespace; rename downstream '${server}'` });
    }
    for (const tool of c.tools ?? []) {
      const name = exportedName(server, tool);
      if (!EXPORTED_NAME.test(name)) problems.push({ server, tool, reason: invalidReason(name, server, tool) });
    }
  }
  return problems;
}

function invalidReason(name: string, server: string, tool: string): string {
  return `'${name}' is not a valid tool name (${name.length > 64 ? `${name.length} characters, at most 64` : 'only letters, digits, _ and -'}); ` +
    `leave '${tool}' out with downstream '${server}' tools: [...] or give the server a shorter name`;
}
