// The server's own lines: `startup` and `shutdown`, and closing what a previous process left open.
// Confirmation proposals live in memory, so a process that ends (crash, kill, stop) takes its
// pending proposals with it; the audit log would show them `proposed` forever. At startup we read
// the log back to the previous `startup` line (the lines of the run that just ended) and close:
// - every `proposed` proposal with no later line for its proposal_id, as `expired`;
// - every `executing` change with no `executed`/`failed` line, as `failed` with code `interrupted`
//   (its outcome is unknown: the process died while it ran), unless its change record is still
//   open: those are closed from the record, by their vSphere task's real end.
// Scope: the current file only (a rotation since the last startup hides older lines), the last
// 64 MB of it, and one server process per audit log.
import { randomUUID } from 'node:crypto';
import type { AuditRecord, AuditWriter } from './audit-writer.js';
import { fileLinesBackward } from './tail.js';

export const SERVER_IDENTITY = 'zerto-rewind-mcp';
const SCAN_BYTES = 64 * 1024 * 1024;
const CLOSES_PROPOSAL = new Set(['executing', 'executed', 'failed', 'cancelled', 'expired', 'denied', 'dry_run']);
const CLOSES_CHANGE = new Set(['executed', 'failed']);
/** The `interrupted` closing's message (also the change recovery's, when a task's end cannot be known). */
export const INTERRUPTED_MESSAGE = 'The server process ended while this change ran; its outcome is unknown. Check the object (and its checkpoint) before retrying.';

type Line = Pick<AuditRecord, 'id' | 'tool' | 'phase' | 'identity' | 'target' | 'proposal_id'>;

export interface LeftOpen {
  proposals: Line[];
  changes: Line[];
}

/**
 * What the run before this one left open (see the file comment). `ownStartupId`: this run's own
 * `startup` line, already written; everything after it (this run's lines) is skipped.
 */
export async function findLeftOpen(path: string, ownStartupId?: string): Promise<LeftOpen> {
  const closedProposals = new Set<string>();
  const closedChanges = new Set<string>();
  const out: LeftOpen = { proposals: [], changes: [] };
  let pastOwn = ownStartupId === undefined;
  for await (const text of fileLinesBackward(path, SCAN_BYTES)) {
    let rec: Line;
    try {
      rec = JSON.parse(text) as Line;
    } catch {
      continue;
    }
    if (!pastOwn) {
      if (rec.phase === 'startup' && rec.id === ownStartupId) pastOwn = true;
      continue;
    }
    if (rec.phase === 'startup') break;
    if (rec.proposal_id && CLOSES_PROPOSAL.has(rec.phase)) closedProposals.add(rec.proposal_id);
    if (CLOSES_CHANGE.has(rec.phase)) closedChanges.add(rec.id);
    if (rec.phase === 'proposed' && rec.proposal_id && !closedProposals.has(rec.proposal_id)) out.proposals.push(rec);
    if (rec.phase === 'executing' && !closedChanges.has(rec.id)) out.changes.push(rec);
  }
  out.proposals.reverse();
  out.changes.reverse();
  return out;
}

export interface StartupMeta {
  version: string;
  /** Lab mode (the runtime got the lab's extra tools). */
  lab: boolean;
}

/** Closings still running, per writer: the shutdown line waits for them. */
const closing = new WeakMap<AuditWriter, Promise<unknown>>();

/**
 * Writes the `startup` line and resolves; rejects when the log cannot be written (a server whose
 * audit log fails at startup must not start). Closing what the previous run left open reads back
 * through the log, so it runs after startup instead of delaying it: `closed` settles when done.
 */
export async function auditStartup(writer: AuditWriter, meta: StartupMeta, opts: { followedOn?: ReadonlySet<string> } = {}): Promise<{ id: string; closed: Promise<LeftOpen> }> {
  const id = randomUUID();
  await writer.write({
    id, target: null, tool: SERVER_IDENTITY, phase: 'startup', identity: SERVER_IDENTITY,
    detail: { version: meta.version, pid: process.pid, lab: meta.lab },
  });
  const closed = closeLeftOpen(writer, id, opts.followedOn ?? new Set());
  closing.set(writer, closed.catch(() => undefined));
  return { id, closed };
}

async function closeLeftOpen(writer: AuditWriter, startupId: string, followedOn: ReadonlySet<string>): Promise<LeftOpen> {
  const found = await findLeftOpen(writer.path, startupId);
  // A change with a change record is closed from its record, by its task's real end (app/startup/change-recovery.ts).
  const left = { ...found, changes: found.changes.filter((c) => !followedOn.has(c.id)) };
  for (const p of left.proposals) {
    await writer.write({
      ...pick(p), phase: 'expired',
      detail: { reason: 'still open when the previous server process ended; proposals live in memory, so it can no longer be confirmed', closed_by: startupId },
    });
  }
  for (const c of left.changes) {
    await writer.write({
      ...pick(c), phase: 'failed',
      detail: { code: 'interrupted', message: INTERRUPTED_MESSAGE, closed_by: startupId },
    });
  }
  return left;
}

/**
 * `auditTable`: central mode's last row of the shared audit table at this moment. Recorded in the
 * file, outside the table, it lets `audit verify --database-url URL --anchors FILE` notice a tail
 * cut off the table later.
 */
export async function auditShutdown(writer: AuditWriter, reason: string, auditTable?: { seq: string; hash: string }): Promise<void> {
  await closing.get(writer);
  await writer.write({ id: randomUUID(), target: null, tool: SERVER_IDENTITY, phase: 'shutdown', identity: SERVER_IDENTITY, detail: { reason, pid: process.pid, ...(auditTable ? { audit_table: auditTable } : {}) } });
}

function pick(l: Line): Omit<AuditRecord, 'phase'> {
  return { id: l.id, tool: l.tool, identity: l.identity, target: l.target ?? null, ...(l.proposal_id ? { proposal_id: l.proposal_id } : {}) };
}
