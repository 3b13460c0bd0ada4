// The record of FLR sessions this server opened and has not closed, so a mount left by a crash can
// be found and ended later. The registry keeps it through FlrSessionRegistryStore: this file's
// FlrSessionStore (embedded mode) or store/pg's PostgreSQL table (central mode, shared by every
// instance). The file store is a small JSON file beside the audit log; every change is a
// read-modify-write (another server process may share the file) written atomically via a temp file
// and rename, so a crash mid-write never leaves a torn file.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface StoredFlrSession {
  site: string;
  session_id: string;
  vm: string;
  vm_identifier: string;
  vpg: string;
  vpg_id: string;
  checkpoint_id: string;
  /** When it was recorded: the session's opening, or for a mount request, when it went out. */
  opened_at: string;
  /**
   * Set on the record of a mount request whose answer has not arrived: `session_id` is then a
   * placeholder (`mount-requested:<uuid>`) until the ZVM's answer replaces the record.
   */
  mount_requested?: true;
  /** The server process that opened it: orphan detection compares these. */
  owner: { pid: number; instance: string };
}

/** Where the registry keeps its records. */
export interface FlrSessionRegistryStore {
  read(): Promise<StoredFlrSession[]>;
  add(entry: StoredFlrSession): Promise<void>;
  remove(site: string, sessionId: string): Promise<void>;
  /**
   * Whether the owner is still running, when the store knows better than a local pid check (a
   * shared store: the owner may be an instance on another host). Answers for owners seen by the
   * last read(); undefined means "ask the OS about the pid".
   */
  ownerAlive?(owner: StoredFlrSession['owner']): boolean | undefined;
}

interface FileShape {
  version: 1;
  sessions: StoredFlrSession[];
}

export class FlrSessionStore implements FlrSessionRegistryStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  async read(): Promise<StoredFlrSession[]> {
    await this.chain.catch(() => undefined);
    return this.load();
  }

  add(entry: StoredFlrSession): Promise<void> {
    return this.update((list) => [...list.filter((s) => !sameKey(s, entry.site, entry.session_id)), entry]);
  }

  remove(site: string, sessionId: string): Promise<void> {
    return this.update((list) => list.filter((s) => !sameKey(s, site, sessionId)));
  }

  private update(change: (list: StoredFlrSession[]) => StoredFlrSession[]): Promise<void> {
    // Serialise writers in this process; the rename makes each write atomic for readers elsewhere.
    const next = this.chain.catch(() => undefined).then(async () => {
      const list = change(await this.load());
      const body: FileShape = { version: 1, sessions: list };
      await mkdir(dirname(this.path), { recursive: true });
      const tmp = `${this.path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
      try {
        await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
        await rename(tmp, this.path);
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
    });
    this.chain = next;
    return next;
  }

  private async load(): Promise<StoredFlrSession[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<FileShape>;
      return Array.isArray(parsed.sessions) ? parsed.sessions.filter(isEntry) : [];
    } catch {
      // A corrupt file must not block restores; the next write replaces it.
      return [];
    }
  }
}

function sameKey(s: StoredFlrSession, site: string, id: string): boolean {
  return s.site === site && s.session_id === id;
}

function isEntry(v: unknown): v is StoredFlrSession {
  const o = v as StoredFlrSession;
  return !!o && typeof o.site === 'string' && typeof o.session_id === 'string' && !!o.owner && typeof o.owner.instance === 'string';
}
