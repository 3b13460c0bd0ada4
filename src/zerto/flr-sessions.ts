// FLR sessions as the agent sees them: what each ZVM reports, joined with what this server
// recorded. `opened_by_this_server` = recorded in the state file; `orphaned` = recorded, but its
// opener (a server process) is gone: startup ends those (app/startup/flr-orphans.ts), so one is listed
// only while that has not happened or the ZVM refused. Ending a session this server did not open
// needs `force`: it may be an administrator's restore in progress.

import { randomUUID } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { isProcessAlive } from '../core/process-alive.js';
import type { ZvmClient } from './client.js';
import { FlrSessionStore, type FlrSessionRegistryStore, type StoredFlrSession } from '../state/files/flr-session-file-store.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { unmountFlrSession, type UnmountReport } from './flr-unmount.js';
import type { MountRecorder } from './flr-site.js';
import { ownText } from '../core/own-text.js';

export type { UnmountReport } from './flr-unmount.js';

export interface FlrSessionView {
  site: string;
  session_id: string;
  status: string;
  vm_identifier: string | null;
  vpg_id: string | null;
  checkpoint_id: string | null;
  mount_time: string | null;
  opened_by_this_server: boolean;
  orphaned: boolean;
  opened_at?: string;
  vm?: string;
  vpg?: string;
}

/** The placeholder session id of a mount request's record (StoredFlrSession.mount_requested). */
const MOUNT_REQUEST = 'mount-requested:';
/**
 * How far a session's MountTime may lie from its request's record to be taken for it: the ZVM
 * stamps the session when it takes the request, so this is mostly the two clocks' skew (the
 * `check` command warns about a ZVM clock off by more than a minute and fails one off by five).
 */
const MOUNT_MATCH_WINDOW_MS = 5 * 60_000;

export type ClientLookup = ReadonlyMap<string, ZvmClient> | ((site: string) => ZvmClient | undefined);

export interface FlrSessionRegistryOptions {
  /** State file path (the server puts it beside the audit log). */
  path: string;
  /** Another store than the state file at `path` (central mode: PostgreSQL). */
  store?: FlrSessionRegistryStore;
  clients: ClientLookup;
  logger?: Logger;
  /** Injectable for tests; default asks the OS whether the pid exists. */
  isProcessAlive?: (pid: number) => boolean;
}

export class FlrSessionRegistry {
  /** Identifies this server process in the state file. */
  readonly instance = randomUUID();
  private readonly store: FlrSessionRegistryStore;
  private readonly log: Logger;
  private readonly alive: (pid: number) => boolean;

  constructor(private readonly opts: FlrSessionRegistryOptions) {
    this.store = opts.store ?? new FlrSessionStore(opts.path);
    this.log = opts.logger ?? silentLogger;
    this.alive = opts.isProcessAlive ?? isProcessAlive;
  }

  async recordOpened(s: Omit<StoredFlrSession, 'owner' | 'opened_at'>): Promise<void> {
    await this.store.add({ ...s, opened_at: new Date().toISOString(), owner: { pid: process.pid, instance: this.instance } });
  }

  /**
   * The recorder of one restore's mount requests: each is recorded before it goes out and
   * replaced by the session once the ZVM answers. A store that cannot be written does not block a
   * restore (its finally unmounts regardless): it is logged, and only a crash in that window
   * would leave an unrecorded mount.
   */
  mountRecorder(what: Omit<StoredFlrSession, 'owner' | 'opened_at' | 'session_id' | 'site' | 'mount_requested'>): MountRecorder {
    const owner = { pid: process.pid, instance: this.instance };
    const warn = (site: string, err: unknown) => this.log.warn({ site, vm: what.vm, err: String(err) }, 'FLR session registry not written');
    return {
      requested: async (site) => {
        const request: StoredFlrSession = { ...what, site, session_id: `${MOUNT_REQUEST}${randomUUID()}`, mount_requested: true, opened_at: new Date().toISOString(), owner };
        const recorded = await this.store.add(request).then(() => true, (err) => { warn(site, err); return false; });
        const forget = () => (recorded ? this.store.remove(site, request.session_id).catch((err) => warn(site, err)) : Promise.resolve());
        return {
          opened: async (sessionId) => {
            await this.recordOpened({ ...what, site, session_id: sessionId }).catch((err) => warn(site, err));
            await forget();
          },
          refused: forget,
        };
      },
    };
  }

  /**
   * A mount request's record whose answer never arrived: finds the session it left, that is the
   * one live session at its site for the same VM, VPG and checkpoint, mounted within
   * MOUNT_MATCH_WINDOW_MS of the request, that no record claims. Found: the record becomes that
   * session's (same owner), which is returned. None: nothing was mounted, the record is dropped.
   * Several: which one is ours cannot be told; the record is dropped and they are returned to
   * report (they may be an administrator's restores, so none is ended on a guess).
   */
  async resolveMountRequest(request: StoredFlrSession, signal?: AbortSignal): Promise<{ session: StoredFlrSession } | { none: true } | { ambiguous: string[] }> {
    const live = await this.client(request.site).listFlrSessions({ vmIdentifier: request.vm_identifier }, signal);
    const stored = (await this.store.read()).filter((s) => s.site === request.site);
    const claimed = new Set(stored.map((s) => s.session_id));
    const requestedAt = Date.parse(request.opened_at);
    // Another request for the same mount, still unanswered (another process's), could own any match.
    const rival = stored.some((s) => s.mount_requested && s.session_id !== request.session_id
      && s.vm_identifier === request.vm_identifier && s.vpg_id === request.vpg_id && s.checkpoint_id === request.checkpoint_id);
    const candidates = live.filter((l) => {
      const mounted = Date.parse(l.MountTime ?? '');
      return !claimed.has(l.FlrSessionIdentifier) && l.VmIdentifier === request.vm_identifier && l.VpgIdentifier === request.vpg_id
        && String(l.CheckpointIdentifier ?? '') === request.checkpoint_id && Math.abs(mounted - requestedAt) <= MOUNT_MATCH_WINDOW_MS;
    });
    if (candidates.length === 1 && !rival) {
      const session: StoredFlrSession = { ...request, session_id: candidates[0]!.FlrSessionIdentifier };
      delete session.mount_requested;
      await this.store.add(session);
      await this.store.remove(request.site, request.session_id);
      return { session };
    }
    await this.store.remove(request.site, request.session_id);
    return candidates.length === 0 ? { none: true } : { ambiguous: candidates.map((c) => c.FlrSessionIdentifier) };
  }

  async recordClosed(site: string, sessionId: string): Promise<void> {
    await this.store.remove(site, sessionId);
  }

  /** Recorded sessions whose opener is gone: to report at startup. */
  async leftovers(): Promise<StoredFlrSession[]> {
    return (await this.store.read()).filter((s) => this.isOrphan(s));
  }

  /** Logs leftovers from an earlier run (a crash mid-restore) and returns them. */
  async reportLeftovers(): Promise<StoredFlrSession[]> {
    const left = await this.leftovers();
    for (const s of left) {
      this.log.warn({ site: s.site, session_id: s.session_id, vm: s.vm, opened_at: s.opened_at }, 'FLR session left mounted by an earlier run; end it with zerto_end_flr_session');
    }
    return left;
  }

  /** Every session the ZVMs report, plus this server's view of each. Sites that fail are listed in `errors`. */
  async list(opts: { site?: string; signal?: AbortSignal } = {}): Promise<{ sessions: FlrSessionView[]; errors: Array<{ site: string; code: string; message: string }> }> {
    const stored = await this.store.read();
    const sites = this.siteNames().filter((s) => !opts.site || s === opts.site);
    if (opts.site && sites.length === 0) throw new AppError('not_found', `No Zerto site named '${opts.site}' is configured.`);
    const sessions: FlrSessionView[] = [];
    const errors: Array<{ site: string; code: string; message: string }> = [];
    await Promise.all(sites.map(async (site) => {
      try {
        const live = await this.client(site).listFlrSessions({}, opts.signal);
        for (const s of live) {
          const mine = stored.find((e) => e.site === site && e.session_id === s.FlrSessionIdentifier);
          const view: FlrSessionView = {
            site, session_id: s.FlrSessionIdentifier, status: String(s.FlrSessionStatus ?? 'unknown'),
            vm_identifier: s.VmIdentifier ?? null, vpg_id: s.VpgIdentifier ?? null,
            checkpoint_id: s.CheckpointIdentifier === null || s.CheckpointIdentifier === undefined ? null : String(s.CheckpointIdentifier),
            mount_time: s.MountTime ?? null, opened_by_this_server: !!mine, orphaned: !!mine && this.isOrphan(mine),
          };
          if (mine) Object.assign(view, { opened_at: mine.opened_at, vm: mine.vm, vpg: mine.vpg });
          sessions.push(view);
        }
        // Recorded sessions the ZVM no longer has were ended elsewhere: forget them.
        const liveIds = new Set(live.map((l) => l.FlrSessionIdentifier));
        // (A mount request's record names no session yet: startup resolves those.)
        const gone: StoredFlrSession[] = stored.filter((x) => x.site === site && !x.mount_requested && this.isOrphan(x) && !liveIds.has(x.session_id));
        for (const g of gone) await this.store.remove(site, g.session_id);
      } catch (err) {
        const e = err instanceof AppError ? err : new AppError('internal', String(err));
        errors.push({ site, code: e.code, message: e.message });
      }
    }));
    sessions.sort((a, b) => a.site.localeCompare(b.site) || a.session_id.localeCompare(b.session_id));
    return { sessions, errors };
  }

  /** Ends one session. Sessions this server did not open need `force`. */
  async end(args: { site: string; sessionId: string; force?: boolean; signal?: AbortSignal }): Promise<UnmountReport & { opened_by_this_server: boolean }> {
    const stored = (await this.store.read()).find((s) => s.site === args.site && s.session_id === args.sessionId);
    if (!stored && !args.force) {
      const live = await this.client(args.site).getFlrSession(args.sessionId, args.signal);
      if (!live) throw new AppError('not_found', `Zerto site '${args.site}' has no FLR session ${args.sessionId}.`);
      throw new AppError('invalid_input', `FLR session ${args.sessionId} at '${args.site}' was not opened by this server; it may be someone's restore in progress.`, {
        hint: ownText('Pass force: true to end it anyway.'),
      });
    }
    const report = await this.unmount(args.site, args.sessionId, { waitMs: 30_000 });
    return { ...report, opened_by_this_server: !!stored };
  }

  /**
   * For shutdown: unmounts every session this process opened and has not closed, including one a
   * mount request left without an answer (found as resolveMountRequest finds it).
   */
  async unmountAllOpened(opts: { waitMs?: number } = {}): Promise<UnmountReport[]> {
    const mine = (await this.store.read()).filter((s) => s.owner.instance === this.instance);
    const reports = await Promise.all(mine.map(async (s): Promise<UnmountReport | undefined> => {
      let session = s;
      if (s.mount_requested) {
        const found = await this.resolveMountRequest(s).catch(() => undefined);
        if (!found || !('session' in found)) return undefined;
        session = found.session;
      }
      return this.unmount(session.site, session.session_id, { waitMs: opts.waitMs ?? 10_000 });
    }));
    return reports.filter((r): r is UnmountReport => r !== undefined);
  }

  /** Unmounts (see flr-unmount.ts) and drops the record once the ZVM accepted it. */
  async unmount(site: string, sessionId: string, opts: { waitMs: number; pollMs?: number; stopWaiting?: AbortSignal }): Promise<UnmountReport> {
    const report = await unmountFlrSession(this.client(site), sessionId, opts);
    if (report.status === 'failed') this.log.warn({ site, session_id: sessionId }, 'FLR unmount failed');
    // Keep the record only when the ZVM refused: then the session is still there to be found.
    else await this.store.remove(site, sessionId);
    return report;
  }

  private isOrphan(s: StoredFlrSession): boolean {
    if (s.owner.instance === this.instance) return false;
    const known = this.store.ownerAlive?.(s.owner);
    if (known !== undefined) return !known;
    return s.owner.pid === process.pid || !this.alive(s.owner.pid);
  }

  private client(site: string): ZvmClient {
    const c = typeof this.opts.clients === 'function' ? this.opts.clients(site) : this.opts.clients.get(site);
    if (!c) throw new AppError('not_found', `No Zerto site named '${site}' is configured.`);
    return c;
  }

  private siteNames(): string[] {
    if (typeof this.opts.clients !== 'function') return [...this.opts.clients.keys()];
    throw new AppError('internal', ownText('FlrSessionRegistry.list needs a Map of clients to enumerate sites.'));
  }
}
