// `zerto-rewind-mcp audit verify FILE...` / `audit verify --database-url URL`: checks the audit
// log's hash chain, in files or in central mode's PostgreSQL table, and says in one line a human
// can act on whether it is intact. Exit 0 when intact, 1 when broken, 2 on misuse or when the
// log cannot be read at all (then nothing was verified).
import { verifyAuditFiles, type VerifyReport } from './verify.js';

export const AUDIT_USAGE = `Usage: zerto-rewind-mcp audit verify FILE...
       zerto-rewind-mcp audit verify --database-url URL [--anchors FILE...]
       zerto-rewind-mcp audit verify            (with DATABASE_URL set)

Checks the hash chain of the audit log: files (give rotated files oldest first, e.g.
  zerto-rewind-mcp audit verify audit.jsonl.2 audit.jsonl.1 audit.jsonl)
or central mode's audit_log table in PostgreSQL (--database-url, or DATABASE_URL when no FILE
is given). --anchors: instances' JSONL audit files, whose shutdown lines recorded the table's
last row; each such row must still be in the table (a cut tail is found).
Exit status: 0 intact, 1 broken (the first break is printed), 2 usage error or unreadable log.`;

type Source = { files: string[] } | { databaseUrl: string; anchorFiles: string[] } | undefined;

function sourceOf(args: string[], env: Record<string, string | undefined>): Source {
  const flag = args.indexOf('--database-url');
  if (flag >= 0) {
    const url = args[flag + 1];
    const rest = args.filter((_, i) => i !== flag && i !== flag + 1);
    // One log at a time: a table and files are separate chains (files only as anchors).
    const anchorFiles = rest[0] === '--anchors' ? rest.slice(1) : [];
    const valid = rest.length === 0 || (rest[0] === '--anchors' && anchorFiles.length > 0 && !anchorFiles.some((f) => f.startsWith('-')));
    return url && !url.startsWith('-') && valid ? { databaseUrl: url, anchorFiles } : undefined;
  }
  if (args.some((f) => f.startsWith('-'))) return undefined;
  if (args.length) return { files: args };
  return env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, anchorFiles: [] } : undefined;
}

// `zerto-rewind-mcp audit verify` is a command of its own: main.ts runs it instead of the MCP
// server (no transport is ever opened) and hands it stdout for its report, as for `check`.
export async function runAuditCommand(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
  env: Record<string, string | undefined>,
): Promise<number> {
  const [sub, ...args] = argv;
  const source = sub === 'verify' ? sourceOf(args, env) : undefined;
  if (!source) {
    err(`${AUDIT_USAGE}\n`);
    return 2;
  }
  if ('files' in source) {
    const report = await verifyAuditFiles(source.files);
    out(`${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  }
  // pg loads only for this form: the file form stays as light as before.
  const { verifyDatabaseAudit } = await import('./verify-database.js');
  const result = await verifyDatabaseAudit(source.databaseUrl, source.anchorFiles);
  if (result.unreadable) {
    err(`${result.text}\n`);
    return 2;
  }
  out(`${result.text}\n`);
  return result.ok ? 0 : 1;
}

export function formatReport(r: VerifyReport): string {
  const counts = r.files.map((f) => `${f.path}: ${f.lines} lines`).join(', ');
  const extras = [
    ...(r.tornRecords ? [`${r.tornRecords} record(s) cut short by a crash, chained over`] : []),
    ...(r.unchainedLines ? [`${r.unchainedLines} line(s) from before chaining, not verifiable`] : []),
    ...r.notes,
  ];
  if (!r.ok && r.problem) {
    const where = r.problem.line > 0 ? `${r.problem.path} line ${r.problem.line}` : r.problem.path;
    return `BROKEN: ${where}: ${r.problem.reason}${counts ? `\n(read so far: ${counts})` : ''}`;
  }
  return [`OK: ${r.files.length} file(s), ${r.lines} lines, chain intact (${counts})`, ...extras.map((e) => `note: ${e}`)].join('\n');
}
