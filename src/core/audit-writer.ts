// Append-only JSONL audit log. One line per tool call and per lifecycle event, all lines of one
// call sharing its `id`. Lines are written one at a time through a queue with a single write per
// line on an O_APPEND descriptor, so they never interleave. A write that fails rejects: the
// pipeline treats a failed `executing` line as "do not run the mutation".
import { open, type FileHandle } from 'node:fs/promises';
import { mkdirSync, accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { redact } from './redact.js';

export type AuditPhase =
  | 'call' | 'proposed' | 'executing' | 'executed' | 'denied' | 'failed'
  | 'cancelled' | 'dry_run' | 'checkpointed' | 'expired' | 'startup' | 'shutdown';

export interface AuditRecord {
  id: string;
  target: string | null;
  tool: string;
  phase: AuditPhase;
  identity: string;
  /** Which door the call came through (MCP client or approval dashboard); never read from the identity. */
  via?: 'mcp' | 'web';
  args?: unknown;
  decision?: { allowed: boolean; reason: string; rule: string | null };
  proposal_id?: string;
  /** Short outcome: error code/message, checkpoint tag, dry-run summary... */
  detail?: unknown;
}

export interface AuditSink {
  write(record: AuditRecord): Promise<void>;
}

export class AuditWriter implements AuditSink {
  private handle: Promise<FileHandle> | undefined;
  private queue: Promise<void> = Promise.resolve();

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

  write(record: AuditRecord): Promise<void> {
    const line = this.serialize(record);
    const next = this.queue.then(() => this.append(line));
    // Keep the queue alive after a failure; the caller still sees this write's rejection.
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.handle) {
      const h = await this.handle.catch(() => undefined);
      this.handle = undefined;
      await h?.close();
    }
  }

  private serialize(record: AuditRecord): string {
    const at = this.now();
    const ms = at.getTime();
    const ordered = {
      ts: at.toISOString(),
      ts_epoch: ms / 1000,
      id: record.id,
      target: record.target,
      tool: record.tool,
      phase: record.phase,
      identity: record.identity,
      ...(record.via !== undefined ? { via: record.via } : {}),
      ...(record.proposal_id !== undefined ? { proposal_id: record.proposal_id } : {}),
      ...(record.args !== undefined ? { args: record.args } : {}),
      ...(record.decision !== undefined ? { decision: record.decision } : {}),
      ...(record.detail !== undefined ? { detail: record.detail } : {}),
    };
    return `${JSON.stringify(redact(ordered, this.secrets()))}\n`;
  }

  private async append(line: string): Promise<void> {
    this.handle ??= open(this.path, 'a', 0o600);
    let h: FileHandle;
    try {
      h = await this.handle;
    } catch (err) {
      this.handle = undefined; // try to reopen next time (e.g. the folder was recreated)
      throw err;
    }
    await h.write(line);
  }
}
