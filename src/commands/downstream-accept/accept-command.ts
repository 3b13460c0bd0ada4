// `zerto-rewind-mcp downstream changes` / `downstream accept SERVER [TOOL...]`: the operator's side
// of pinned downstream definitions (pins.ts). A downstream tool listed differently from its first
// sight stays as first seen until accepted here; no MCP tool can accept, so the model never does.
// The pin file sits beside the audit log (AUDIT_LOG_PATH), where the running server keeps it and
// looks for changes every second.
import { existsSync, readFileSync } from 'node:fs';
import { stateFile } from '../../config/paths.js';
import { acceptDownstreamChanges } from '../../downstream/pins.js';

export const DOWNSTREAM_USAGE = `Usage: zerto-rewind-mcp downstream changes
       zerto-rewind-mcp downstream accept SERVER [TOOL...]

changes  lists the downstream tools whose listing differs from their pinned (first-seen) definition
accept   pins the listed definition of each TOOL of SERVER (every changed one when no TOOL is given);
         a running server applies it within seconds. A tool once listed as a change stays a change.
The pins are kept beside the audit log (AUDIT_LOG_PATH).`;

export async function runDownstreamCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
  env: Record<string, string | undefined>,
): Promise<number> {
  const path = stateFile(env.AUDIT_LOG_PATH || './audit.jsonl', 'downstream-pins');
  const [sub, server, ...tools] = argv;
  try {
    if (sub === 'changes' && !server) {
      out(`${describeChanges(path)}\n`);
      return 0;
    }
    if (sub === 'accept' && server && !server.startsWith('-')) {
      const accepted = acceptDownstreamChanges(path, server, tools);
      out(accepted.length ? `accepted for '${server}': ${accepted.join(', ')}\n` : `nothing to accept for '${server}': no tool differs from its pin\n`);
      return 0;
    }
  } catch (e) {
    err(`zerto-rewind-mcp downstream: ${(e as Error).message}\n`);
    return 1;
  }
  err(`${DOWNSTREAM_USAGE}\n`);
  return 2;
}

function describeChanges(path: string): string {
  if (!existsSync(path)) return `no pinned downstream definitions yet (${path})`;
  const file = JSON.parse(readFileSync(path, 'utf8')) as { servers: Record<string, Record<string, { pending?: { changed: string[]; seen_at: string } }>> };
  const lines = Object.entries(file.servers).flatMap(([server, tools]) => Object.entries(tools)
    .filter(([, r]) => r.pending)
    .map(([tool, r]) => `${server} / ${tool}: ${r.pending!.changed.join(', ')} changed (seen ${r.pending!.seen_at})`));
  return lines.length ? lines.join('\n') : 'every downstream tool is listed as pinned';
}
