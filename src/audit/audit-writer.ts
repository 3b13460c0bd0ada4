// Append-only JSONL audit log, all or nothing. One line per tool call and per lifecycle event, all
// lines of one call sharing its `id`. Lines go through one queue, one line at a time, so they never
// interleave. Each write:
// - checks that the open file is still the file at the path (after `mv` or `rm` the path is opened
//   again, created if needed; when it cannot be opened the write fails, so a change fails closed);
// - starts on a fresh line (bytes a crash left without a newline get one before the next record);
// - is written whole or not at all: a short or failed write is cut back off the file and rejects;
// - carries `prev`, the hash of the line before it (see audit/chain.ts);
// - is fsync'ed before it resolves when durable: `executing` and `proposed` lines always are, so a
//   change never runs before its `executing` line is on disk.
// Values over 8 KB are recorded as {length, sha256} (audit/cap.ts); every line has `decision`.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { mkdirSync, accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from '../core/redact.js';
import { exceedsDepth } from '../core/json-depth.js';
import { AUDIT_VALUE_MAX_DEPTH, capValue } from './cap.js';
import { CHAIN_FIELD, lineHash } from './chain.js';
import { readTailState } from './tail.js';
import type { ApprovalReceipt } from '../core/approval.js';

export type AuditPhase =
  | 'call' | 'proposed' | 'executing' | 'executed' | 'denied' | 'failed'
  | 'cancelled' | 'dry_run' | 'checkpointed' | 'expired' | 'startup' | 'shutdown';

export interface AuditDecision { allowed: boolean; reason: string; rule: string | null }

export interface AuditRecord {
  id: string;
  target: string | null;
  tool: string;
  phase: AuditPhase;
  identity: string;
  /** Which door the call came through (MCP client or approval dashboard); never read from the identity. */
  via?: 'mcp' | 'web';
  args?: unknown;
  /** The policy decision this line records; written as `null` when the caller gives none. */
  decision?: AuditDecision | null;
  proposal_id?: string;
  /** Short outcome: error code/message, checkpoint tag, dry-run summary... */
  detail?: unknown;
  /** On a confirmed proposal's lines: who approved it, through which channel, under which policy. */
  approval?: ApprovalReceipt;
  /** The MCP client's W3C trace context for this call, so its trace and this line join up. */
  traceparent?: string;
  /** On every line of an undo_change: the change_id it undoes. */
  undo_of?: string;
}

export interface AuditWriteOptions {
  /** fsync before resolving. Default: true for `executing` and `proposed`, false otherwise. */
  durable?: boolean;
}

export interface AuditSink {
  write(record: AuditRecord, opts?: AuditWriteOptions): Promise<void>;
}

/** Phases whose line must be on disk before the caller acts on it. */
export const DURABLE_PHASES: ReadonlySet<AuditPhase> = new Set<AuditPhase>(['executing', 'proposed', 'startup', 'shutdown']);

interface OpenFile {
  handle: FileHandle;
  dev: number;
  ino: number;
  /** Size after our last write; a different size means someone else wrote (or truncated) it. */
  size: number;
}

export class AuditWriter implements AuditSink {
  private file: OpenFile | undefined;
  private queue: Promise<void> = Promise.resolve();
  /** Hash of the last line written to (or found at the end of) the log; null before the first. */
  private lastHash: string | null = null;

  constructor(
    readonly path: string,
    private readonly secrets: () => readonly string[],
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Startup check: the folder exists (created if needed) and the file is writable. */
  static checkWritable(path: string): string | undefined {
    try {
      mkdirSync(dirname(path), { recursive: true });
      if (existsSync(path)) {
        if (!statSync(path).isFile()) return `audit log ${path} is not a regular file (a directory?)`;
        accessSync(path, constants.W_OK);
      } else accessSync(dirname(path), constants.W_OK);
      return undefined;
    } catch (err) {
      return `audit log ${path} is not writable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    }
  }

  write(record: AuditRecord, opts: AuditWriteOptions = {}): Promise<void> {
    const body = this.serialize(record);
    const durable = opts.durable ?? DURABLE_PHASES.has(record.phase);
    const next = this.queue.then(() => this.append(body, durable));
    // Keep the queue alive after a failure; the caller still sees this write's rejection.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Waits for queued lines and closes the file. The next write opens it again. */
  async close(): Promise<void> {
    await this.queue;
    const f = this.file;
    this.file = undefined;
    await f?.handle.close().catch(() => undefined);
  }

  private serialize(record: AuditRecord): Record<string, unknown> {
    return auditBody(record, this.now(), this.secrets());
  }

  private async append(body: Record<string, unknown>, durable: boolean): Promise<void> {
    const f = await this.current();
    // `prev` is added after redaction: a short secret must never be cut out of a hash.
    const line = JSON.stringify({ ...body, [CHAIN_FIELD]: this.lastHash });
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    const before = f.size;
    try {
      await writeAll(f.handle, bytes);
      if (durable) await f.handle.datasync();
    } catch (err) {
      await this.rollback(f, before);
      throw err;
    }
    f.size = before + bytes.length;
    this.lastHash = lineHash(line);
  }

  /** The open file, reopened when the path no longer names it; its tail read when it changed under us. */
  private async current(): Promise<OpenFile> {
    if (this.file) {
      const onDisk = await stat(this.path).catch(() => undefined);
      if (onDisk && onDisk.dev === this.file.dev && onDisk.ino === this.file.ino) {
        if (onDisk.size !== this.file.size) await this.adopt(this.file, onDisk.size);
        return this.file;
      }
      // Rotated (`mv`), deleted (`rm`) or replaced: our lines would go to a file nobody reads.
      const old = this.file;
      this.file = undefined;
      await old.handle.close().catch(() => undefined);
    }
    // a+: appends, and lets us read the tail back (torn-tail repair, chaining).
    const handle = await open(this.path, 'a+', 0o600);
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new Error(`audit log ${this.path} is not a regular file`);
      const f: OpenFile = { handle, dev: st.dev, ino: st.ino, size: 0 };
      await this.adopt(f, st.size);
      this.file = f;
      return f;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Takes the file as it is: chains onto its last complete line, and ends a torn tail with a newline
   * so the next record starts on a fresh line. An empty file (new, rotated, truncated) keeps the
   * hash of the line before it, so the chain runs across files.
   */
  private async adopt(f: OpenFile, size: number): Promise<void> {
    f.size = size;
    if (size === 0) return;
    const tail = await readTailState(f.handle, size);
    if (!tail.endsWithNewline) {
      await writeAll(f.handle, Buffer.from('\n'));
      f.size += 1;
    }
    if (tail.lastLine !== undefined) this.lastHash = lineHash(tail.lastLine);
  }

  /** Cuts a failed line back off; when even that fails, the next write reopens and repairs the tail. */
  private async rollback(f: OpenFile, size: number): Promise<void> {
    try {
      await f.handle.truncate(size);
    } catch {
      this.file = undefined;
      await f.handle.close().catch(() => undefined);
    }
  }
}

/** A value too deep to walk safely is replaced before redaction ever recurses into it. */
function shallow(value: unknown): unknown {
  return exceedsDepth(value, AUDIT_VALUE_MAX_DEPTH) ? { capped: true, too_deep: true } : value;
}

/** One line is one record: a short write is continued, and a write that stops short rejects. */
async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
    if (bytesWritten <= 0) throw new Error('audit write made no progress');
    offset += bytesWritten;
  }
}

/** One record as the line's fields (before `prev`): fixed key order, redacted, capped. Shared with the PostgreSQL sink. */
export function auditBody(record: AuditRecord, at: Date, secrets: readonly string[]): Record<string, unknown> {
  const ordered = {
    ts: at.toISOString(),
    ts_epoch: at.getTime() / 1000,
    id: record.id,
    target: record.target,
    tool: record.tool,
    phase: record.phase,
    identity: record.identity,
    ...(record.via !== undefined ? { via: record.via } : {}),
    ...(record.proposal_id !== undefined ? { proposal_id: record.proposal_id } : {}),
    ...(record.traceparent !== undefined ? { traceparent: record.traceparent } : {}),
    ...(record.undo_of !== undefined ? { undo_of: record.undo_of } : {}),
    ...(record.args !== undefined ? { args: shallow(record.args) } : {}),
    decision: record.decision ?? null,
    ...(record.detail !== undefined ? { detail: shallow(record.detail) } : {}),
    ...(record.approval !== undefined ? { approval: record.approval } : {}),
  };
  // Redact first, then cap: a capped value's hash is of what the log would have shown.
  const clean = redact(ordered, secrets);
  if (clean.args !== undefined) clean.args = capValue(clean.args);
  if (clean.detail !== undefined) clean.detail = capValue(clean.detail);
  return clean;
}
