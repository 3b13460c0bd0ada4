// Re-exported names: `<server>__<tool>`, which must match ^[a-zA-Z0-9_-]{1,64}$ (the pattern every
// client accepts). Two downstream tools that would share a name, or one that would clash with this
// server's own tools, cannot both be exposed: at startup that refuses the start with a message
// saying which and how to fix it; later (a list_changed) the newcomer is left out and reported.

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
      problems.push({
        ...t,
        reason: `'${name}' is not a valid tool name (${name.length > 64 ? `${name.length} characters, at most 64` : 'only letters, digits, _ and -'}); ` +
          `leave '${t.tool}' out with downstream '${t.server}' tools: [...] or give the server a shorter name`,
      });
      continue;
    }
    if (taken.has(name)) {
      problems.push({ ...t, reason: `'${name}' is already one of this server's own tools; rename downstream '${t.server}'` });
      continue;
    }
    const first = owner.get(name);
    if (first) {
      problems.push({ ...t, reason: `'${name}' would name both '${first.server}' tool '${first.tool}' and '${t.server}' tool '${t.tool}'; rename one of the servers or leave one tool out with tools: [...]` });
      continue;
    }
    owner.set(name, t);
  }
  return problems;
}
