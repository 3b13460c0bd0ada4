// A downstream tool's definition is pinned at first sight: the hints, title, description and
// schemas it was first listed with are what the gateway advertises and enforces. A later listing
// that differs (a rug pull: a hint flipped to readOnlyHint, a description that now carries
// instructions, a looser schema) does not take effect; it is kept as `pending` and shown by
// list_downstream until the operator accepts it with `zerto-rewind-mcp downstream accept
// <server> [tool...]` (never the model: no tool can accept). A tool once listed as a change stays
// a change for good, accepted or not. Pins live in a state file beside the audit log, so a
// restart of this server (or of the downstream) does not accept anything either.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { DownstreamTool } from './downstream-tool.js';

/** The parts of a definition a change of which is held back. */
const PINNED_PARTS = ['title', 'description', 'annotations', 'inputSchema', 'outputSchema'] as const;
export type PinnedPart = (typeof PINNED_PARTS)[number];

interface PinRecord {
  pinned: DownstreamTool;
  pinned_at: string;
  /** Listed as a change (not readOnlyHint) at least once: never a read again. */
  ever_change: boolean;
  pending?: { tool: DownstreamTool; seen_at: string; changed: PinnedPart[] };
}

interface PinFile {
  version: 1;
  servers: Record<string, Record<string, PinRecord>>;
}

export interface ChangedTool {
  tool: string;
  /** Which parts differ from the pinned definition. */
  changed: PinnedPart[];
  seen_at: string;
}

export interface PinnedTool {
  /** The definition to advertise and enforce (the pinned one). */
  tool: DownstreamTool;
  /** Whether it may be treated as a read: pinned, listed and ever-seen hints all say so. */
  readOnly: boolean;
}

/** The pins of every downstream tool; `path` undefined keeps them in memory (tests of one process). */
export class DownstreamPins {
  private file: PinFile;
  private raw = '';

  constructor(private readonly path: string | undefined, private readonly now: () => Date = () => new Date()) {
    this.file = this.read();
  }

  /**
   * The definitions to use for a server's current listing: a tool seen for the first time is pinned
   * as listed; a listing equal to the pin is used; a different one is held back as pending.
   */
  reconcile(server: string, listed: DownstreamTool[]): PinnedTool[] {
    const records = (this.file.servers[server] ??= {});
    let dirty = false;
    const out = listed.map((tool): PinnedTool => {
      const listedReadOnly = tool.annotations?.readOnlyHint === true;
      let rec = records[tool.name];
      if (!rec) {
        rec = records[tool.name] = { pinned: tool, pinned_at: this.now().toISOString(), ever_change: !listedReadOnly };
        dirty = true;
      }
      if (!listedReadOnly && !rec.ever_change) {
        rec.ever_change = true;
        dirty = true;
      }
      const changed = differences(rec.pinned, tool);
      if (changed.length === 0) {
        if (rec.pending) dirty = true;
        delete rec.pending;
      } else if (!rec.pending || JSON.stringify(rec.pending.tool) !== JSON.stringify(tool)) {
        rec.pending = { tool, seen_at: this.now().toISOString(), changed };
        dirty = true;
      }
      const pinnedReadOnly = rec.pinned.annotations?.readOnlyHint === true;
      return { tool: rec.pinned, readOnly: pinnedReadOnly && listedReadOnly && !rec.ever_change };
    });
    if (dirty) this.write();
    return out;
  }

  /** The tools of a server whose listing differs from its pin, for list_downstream. */
  changed(server: string): ChangedTool[] {
    return Object.entries(this.file.servers[server] ?? {})
      .filter(([, r]) => r.pending)
      .map(([tool, r]) => ({ tool, changed: r.pending!.changed, seen_at: r.pending!.seen_at }));
  }

  /** Reads the file again when someone else (the accept command) wrote it; true when it changed. */
  reload(): boolean {
    if (!this.path || !existsSync(this.path)) return false;
    const raw = readFileSync(this.path, 'utf8');
    if (raw === this.raw) return false;
    this.file = this.read();
    return true;
  }

  private read(): PinFile {
    if (!this.path || !existsSync(this.path)) return { version: 1, servers: {} };
    this.raw = readFileSync(this.path, 'utf8');
    return parsePins(this.raw, this.path);
  }

  private write(): void {
    if (!this.path) return;
    this.raw = writePins(this.path, this.file);
  }
}

/**
 * The operator's acceptance (the `downstream accept` command): the pending definition of each
 * named tool of `server` (every changed one when none is named) becomes its pin. Returns the
 * tools accepted. A running server reads the file again within a few seconds.
 */
export function acceptDownstreamChanges(path: string, server: string, tools: string[] = []): string[] {
  if (!existsSync(path)) throw new Error(`no pinned downstream definitions at ${path} (the server writes it when a downstream first lists its tools)`);
  const file = parsePins(readFileSync(path, 'utf8'), path);
  const records = file.servers[server];
  if (!records) throw new Error(`no pinned tools for downstream server '${server}' in ${path}; known: ${Object.keys(file.servers).join(', ') || 'none'}`);
  const names = tools.length ? tools : Object.keys(records).filter((t) => records[t]!.pending);
  const accepted: string[] = [];
  for (const name of names) {
    const rec = records[name];
    if (!rec) throw new Error(`downstream server '${server}' has no pinned tool '${name}'`);
    if (!rec.pending) continue;
    rec.pinned = rec.pending.tool;
    rec.pinned_at = new Date().toISOString();
    delete rec.pending;
    accepted.push(name);
  }
  writePins(path, file);
  return accepted;
}

function differences(pinned: DownstreamTool, listed: DownstreamTool): PinnedPart[] {
  return PINNED_PARTS.filter((p) => JSON.stringify(pinned[p] ?? null) !== JSON.stringify(listed[p] ?? null));
}

function parsePins(raw: string, path: string): PinFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    // Fail closed: with the pins unreadable, nothing would be held back; refuse to guess.
    throw new Error(`the pinned downstream definitions in ${path} are not valid JSON (${(err as Error).message}); restore the file or delete it to pin every tool afresh`, { cause: err });
  }
  const file = parsed as Partial<PinFile>;
  if (file.version !== 1 || typeof file.servers !== 'object' || file.servers === null) {
    throw new Error(`${path} is not a pinned downstream definitions file (version 1); restore it or delete it to pin every tool afresh`);
  }
  return file as PinFile;
}

function writePins(path: string, file: PinFile): string {
  const raw = `${JSON.stringify(file, null, 1)}\n`;
  // Whole or not at all: a reader never sees half a file.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, raw, { mode: 0o600 });
  renameSync(tmp, path);
  return raw;
}
