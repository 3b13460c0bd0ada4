// One ZVM REST client per configured site: the typed /v1 endpoints this product uses, nothing
// more. Auth, retries, timeouts and parsing live below (auth.ts, rest.ts, schemas.ts); the domain
// operations (find-protection, pin-checkpoint, recover-file) live above and never see HTTP.

import { z } from 'zod';
import { AppError } from '../core/errors.js';
import type { SecretSource } from '../core/secrets.js';
import { TokenManager } from './auth.js';
import { ZvmHttp, type RawResponse } from './http.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { ZvmRest } from './rest.js';
import {
  ActionResult, CheckpointList, CheckpointStats, FlrSessionList, FlrSessionOne, LocalSite, PathInformation, PeerSiteList, PointInTimeList, Task,
  Vpg, VpgList, VmRowList, type Checkpoint, type FlrSession, type Listed, type PathItem, type PeerSite, type PointInTime, type VmRow,
} from './schemas.js';
import type { ZertoSiteConfig } from './site-config.js';
import { ownText } from '../core/own-text.js';

export interface ZvmClientOptions {
  site: ZertoSiteConfig;
  secrets: SecretSource;
  logger?: Logger;
  /** Per-request timeout for /v1 and token calls. */
  requestTimeoutMs?: number;
  /** How long /v1/localsite and /v1/peersites answers are reused. */
  siteCacheMs?: number;
  /** The clock a token's renewal time is read on (default Date.now); tests move it. */
  clock?: () => number;
}

export interface SiteContext {
  local: { id: string; name: string; type: string | null };
  peers: Array<{ id: string; name: string; type: string | null }>;
}

export interface VmFilter {
  vmName?: string;
  vmIdentifier?: string;
  vpgName?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * FLR browse paging: the 10.x DTO has nullable `pageNumber`/`pageSize`, with no documented base,
 * default or maximum, and no total count (docs/zerto-notes.md). So the base is never assumed:
 * pages 0 and 1 are both read and merged by path (a 1-based ZVM that reads 0 as 1 only repeats
 * rows; one that refuses page 0 or answers it empty costs nothing), then 2 onwards. From page 1
 * an empty page or one shorter than the first full one ends the listing, and from page 2 so does
 * a page adding nothing new, so a ZVM that caps the size below ours, or ignores pageNumber, ends.
 */
const BROWSE_PAGE_SIZE = 500;
const MAX_BROWSE_PAGES = 1000;

export class ZvmClient {
  readonly site: ZertoSiteConfig;
  /** Where this client's operations log (never secrets): FLR and find-protection use it too. */
  readonly log: Logger;
  private warnedForeignLink = false;
  private readonly http: ZvmHttp;
  private readonly auth: TokenManager;
  private readonly rest: ZvmRest;
  private readonly siteCacheMs: number;
  private siteCache: { at: number; value: Promise<SiteContext> } | undefined;

  constructor(opts: ZvmClientOptions) {
    this.site = opts.site;
    this.log = opts.logger ?? silentLogger;
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.http = new ZvmHttp(opts.site);
    this.auth = new TokenManager({
      site: opts.site, http: this.http, secrets: opts.secrets, timeoutMs, ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.clock ? { now: opts.clock } : {}),
    });
    this.rest = new ZvmRest(opts.site, this.http, this.auth, timeoutMs, opts.logger);
    this.siteCacheMs = opts.siteCacheMs ?? 300_000;
  }

  /** Forces a login now (startup check); normally the first call logs in. */
  async login(signal?: AbortSignal): Promise<void> {
    await this.auth.token(signal);
  }

  /** Values that must never appear in output, for callers that build their own messages. */
  secretValues(): string[] {
    return this.auth.secretValues();
  }

  async localSite(signal?: AbortSignal): Promise<LocalSite> {
    return this.rest.call('GET', '/v1/localsite', { schema: LocalSite, signal });
  }

  async peerSites(signal?: AbortSignal): Promise<PeerSite[]> {
    return this.rows('/v1/peersites', await this.rest.call('GET', '/v1/peersites', { schema: PeerSiteList, signal }));
  }

  /** The local site and its peers, cached: identities and types do not change between calls. */
  async siteContext(signal?: AbortSignal): Promise<SiteContext> {
    const now = Date.now();
    if (!this.siteCache || now - this.siteCache.at > this.siteCacheMs) {
      const value = (async (): Promise<SiteContext> => {
        const [local, peers] = await Promise.all([this.localSite(signal), this.peerSites(signal)]);
        const localId = local.SiteIdentifier ?? local.Link?.identifier;
        if (!localId) throw new AppError('zerto_error', ownText(`Zerto site '${this.site.name}' did not say its own site identifier (/v1/localsite has neither SiteIdentifier nor Link.identifier).`), { details: { site: this.site.name } });
        // A peer without SiteIdentifier is named by its link (the Swagger's PeerSiteApi has only that).
        const known = peers.flatMap((p) => {
          const id = p.SiteIdentifier ?? p.Link?.identifier;
          return id ? [{ id, name: p.PeerSiteName ?? p.SiteName ?? id, type: p.SiteType ?? null }] : [];
        });
        if (known.length < peers.length) this.log.warn({ site: this.site.name, skipped: peers.length - known.length }, 'peer sites without any identifier were skipped');
        return { local: { id: localId, name: local.SiteName ?? this.site.name, type: local.SiteType ?? null }, peers: known };
      })();
      this.siteCache = { at: now, value };
      value.catch(() => {
        if (this.siteCache?.value === value) this.siteCache = undefined;
      });
    }
    return this.siteCache.value;
  }

  async listVms(filter: VmFilter = {}, signal?: AbortSignal): Promise<VmRow[]> {
    return this.rows('/v1/vms', await this.rest.call('GET', '/v1/vms', { schema: VmRowList, query: { ...filter }, signal }));
  }

  async listVpgs(signal?: AbortSignal): Promise<Vpg[]> {
    return this.rows('/v1/vpgs', await this.rest.call('GET', '/v1/vpgs', { schema: VpgList, signal }));
  }

  /**
   * The VM's points in time on one VPG with their FLR eligibility (`CanMount`). Null when this ZVM
   * does not offer the route (older builds): the caller then learns eligibility from the mount.
   */
  async pointsInTime(vmId: string, vpgId: string, range: { startDate?: Date; endDate?: Date } = {}, signal?: AbortSignal): Promise<PointInTime[] | null> {
    try {
      return this.rows('/v1/vms/:id/pointsInTime', await this.rest.call('GET', `/v1/vms/${enc(vmId)}/pointsInTime`, {
        schema: PointInTimeList, signal,
        query: { vpgIdentifier: vpgId, startDate: range.startDate ? zertoDate(range.startDate) : undefined, endDate: range.endDate ? zertoDate(range.endDate) : undefined },
      }));
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return null;
      throw err;
    }
  }

  async getVpg(vpgId: string, signal?: AbortSignal): Promise<Vpg> {
    return this.rest.call('GET', `/v1/vpgs/${enc(vpgId)}`, { schema: Vpg, signal });
  }

  /** Starts a tagged checkpoint insert; returns the task id. Never retried (it would duplicate). */
  async insertTaggedCheckpoint(vpgId: string, checkpointName: string, signal?: AbortSignal): Promise<string> {
    const id = await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/checkpoints`, { schema: ActionResult, body: { checkpointName }, signal });
    return required(id, this.site.name, 'the checkpoint insert task id');
  }

  /**
   * CloneStart (CloneStartDataApi, R1-R3): copies the VPG's VMs, only `vmIds` when given, at a checkpoint
   * onto the recovery site; production stays as it is. `datastoreId` absent lets the ZVM pick
   * (ZertoApiWrapper: the datastore with the most free space). Returns the task id; never retried.
   */
  async startClone(vpgId: string, args: { checkpointId: string; vmIds?: string[]; datastoreId?: string }, signal?: AbortSignal): Promise<string> {
    const body = { checkpointId: args.checkpointId, datastoreIdentifier: args.datastoreId ?? null, vmIdentifiers: args.vmIds ?? null };
    const id = await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/CloneStart`, { schema: ActionResult, body, signal });
    return required(id, this.site.name, 'the clone task id');
  }

  /** CloneAbort (R4): stops the VPG's running clone. The Swagger documents a 200 without a body. */
  async abortClone(vpgId: string, signal?: AbortSignal): Promise<void> {
    await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/CloneAbort`, { schema: ActionResult, signal });
  }

  /** FailoverTest (FailOverTestStartDataApi, R5): test VMs at a checkpoint in the test network; returns the task id. */
  async startFailoverTest(vpgId: string, args: { checkpointId: string; vmIds?: string[] }, signal?: AbortSignal): Promise<string> {
    const body = { checkpointIdentifier: args.checkpointId, vmIdentifiers: args.vmIds ?? null };
    const id = await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/FailoverTest`, { schema: ActionResult, body, signal });
    return required(id, this.site.name, 'the failover test task id');
  }

  /** FailoverTestStop (StopFailoverTestDataApi, R6): ends the VPG's test, removing its test VMs; returns the task id. */
  async stopFailoverTest(vpgId: string, args: { success: boolean; summary: string }, signal?: AbortSignal): Promise<string> {
    const body = { failoverTestSuccess: args.success, failoverTestSummary: args.summary };
    const id = await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/FailoverTestStop`, { schema: ActionResult, body, signal });
    return required(id, this.site.name, 'the stop task id');
  }

  async listCheckpoints(vpgId: string, range: { startDate?: Date; endDate?: Date } = {}, signal?: AbortSignal): Promise<Checkpoint[]> {
    return this.rows('/v1/vpgs/:id/checkpoints', await this.rest.call('GET', `/v1/vpgs/${enc(vpgId)}/checkpoints`, {
      schema: CheckpointList, signal,
      query: { startDate: range.startDate ? zertoDate(range.startDate) : undefined, endDate: range.endDate ? zertoDate(range.endDate) : undefined },
    }));
  }

  /** The journal's first and last checkpoint (GET /v1/vpgs/{id}/checkpoints/stats). */
  async checkpointStats(vpgId: string, signal?: AbortSignal): Promise<{ earliest: string | null; latest: string | null }> {
    const s = await this.rest.call('GET', `/v1/vpgs/${enc(vpgId)}/checkpoints/stats`, { schema: CheckpointStats, signal });
    return { earliest: s.Earliest?.TimeStamp ?? null, latest: s.Latest?.TimeStamp ?? null };
  }

  async getTask(taskId: string, signal?: AbortSignal): Promise<Task> {
    return this.rest.call('GET', `/v1/tasks/${enc(taskId)}`, { schema: Task, signal });
  }

  /** Mounts a journal FLR session at a checkpoint; returns the session id (the mount is async). */
  async mountFlr(args: { vpgId: string; vmId: string; checkpointId: string }, signal?: AbortSignal): Promise<string> {
    const body = { jflr: { vpgIdentifier: args.vpgId, vmIdentifier: args.vmId, checkpointIdentifier: args.checkpointId, initialDownloadPath: null }, bflr: null };
    const id = await this.rest.call('POST', '/v1/flrs', { schema: ActionResult, body, signal });
    return required(id, this.site.name, 'the FLR session id');
  }

  /** One session, or null when the ZVM no longer knows it (404, or an empty array). */
  async getFlrSession(sessionId: string, signal?: AbortSignal): Promise<FlrSession | null> {
    try {
      return await this.rest.call('GET', `/v1/flrs/${enc(sessionId)}`, { schema: FlrSessionOne, signal });
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return null;
      throw err;
    }
  }

  async listFlrSessions(filter: { vmIdentifier?: string } = {}, signal?: AbortSignal): Promise<FlrSession[]> {
    return this.rows('/v1/flrs', await this.rest.call('GET', '/v1/flrs', { schema: FlrSessionList, query: { ...filter }, signal }));
  }

  /** Browses a mounted session, every page of it (BROWSE_PAGE_SIZE); '' lists partitions. */
  async browseFlr(sessionId: string, path: string, signal?: AbortSignal): Promise<PathInformation> {
    const items = new Map<string, PathItem>();
    let main: PathInformation['MainPathItem'];
    let firstLength = 0;
    const done = (): PathInformation => ({ MainPathItem: main ?? null, PathItems: [...items.values()] });
    for (let pageNumber = 0; pageNumber <= MAX_BROWSE_PAGES; pageNumber++) {
      let page: PathInformation;
      try {
        page = await this.rest.call('POST', `/v1/flrs/${enc(sessionId)}/browse`, {
          schema: PathInformation, body: { path, pageNumber, pageSize: BROWSE_PAGE_SIZE }, idempotent: true, signal,
        });
      } catch (err) {
        // A 1-based ZVM may refuse page 0 outright: page 1 follows.
        if (pageNumber === 0 && err instanceof AppError && err.details?.status === 400) continue;
        throw err;
      }
      main ??= page.MainPathItem;
      const got = page.PathItems ?? [];
      const before = items.size;
      for (const item of got) if (!items.has(item.Path)) items.set(item.Path, item);
      firstLength ||= got.length;
      if (pageNumber === 0) continue;
      if (got.length === 0 || got.length < firstLength || (pageNumber >= 2 && items.size === before)) return done();
    }
    throw new AppError('zerto_error', `Zerto site '${this.site.name}' kept answering pages of FLR folder '${path}' past ${MAX_BROWSE_PAGES * BROWSE_PAGE_SIZE} entries.`, {
      details: { site: this.site.name, path },
    });
  }

  /** Asks for a download link for the given FLR paths; the link may be relative or absolute. */
  async requestFlrDownload(sessionId: string, paths: string[], signal?: AbortSignal): Promise<string> {
    const url = await this.rest.call('POST', `/v1/flrs/${enc(sessionId)}/download`, { schema: ActionResult, body: { pathList: paths }, signal });
    return required(url, this.site.name, 'the download URL');
  }

  /**
   * GETs a download link, always from the configured origin: the bearer is never sent anywhere
   * else. An absolute link naming another host (the appliance's FQDN where the config has its IP,
   * or any host) is fetched from the configured origin with the link's path, since the ZVM that
   * issued it is the one this client is configured for (the link form is undocumented: docs/zerto-notes.md).
   */
  async fetchDownload(link: string, opts: { signal?: AbortSignal | undefined; maxBytes: number; timeoutMs?: number }): Promise<{ url: string; response: RawResponse }> {
    const resolved = new URL(resolveDownloadUrl(this.site.url, link));
    const origin = new URL(this.site.url).origin;
    if (resolved.origin !== origin && !this.warnedForeignLink) {
      this.warnedForeignLink = true;
      this.log.info({ site: this.site.name, linkHost: resolved.host }, 'download link names another host; fetching its path from the configured ZVM origin');
    }
    const url = origin + resolved.pathname + resolved.search;
    const response = await this.rest.raw(url, { bearer: true, signal: opts.signal, maxBytes: opts.maxBytes, timeoutMs: opts.timeoutMs ?? 120_000 });
    if (response.status === 401 || response.status === 403) {
      // The token was fine a moment ago (it just fetched the link): the link is what was refused.
      throw new AppError('zerto_error', `Zerto site '${this.site.name}' refused its own download link ${resolved.pathname} (HTTP ${response.status}); the link may have expired or be single-use.`, {
        retryable: true, hint: ownText('Run the restore again: it asks for a fresh link.'), details: { site: this.site.name, status: response.status },
      });
    }
    if (response.status < 200 || response.status >= 300) throw this.rest.failure('GET', url, response);
    return { url, response };
  }

  /** Unmounts (ends) an FLR session; returns the string the ZVM answers (probably a task id). */
  async unmountFlr(sessionId: string, signal?: AbortSignal): Promise<string | null> {
    return this.rest.call('DELETE', `/v1/flrs/${enc(sessionId)}`, { schema: ActionResult, signal });
  }

  /**
   * A read-only GET answered as raw JSON, for `check --zerto` (src/commands/check/zerto-probe.ts), which
   * compares it with the schemas itself. Auth, retries and error mapping are the normal ones.
   */
  async probeGet(path: string, query: Record<string, string | undefined> = {}, signal?: AbortSignal): Promise<unknown> {
    return this.rest.call('GET', path, { schema: z.unknown(), query, signal });
  }

  /** The rows of a lenient list; skipped (unusable) rows are logged with their count. */
  private rows<T>(route: string, listed: Listed<T>): T[] {
    if (listed.skipped > 0) this.log.warn({ site: this.site.name, route, skipped: listed.skipped }, 'rows the ZVM sent without a member this server needs were skipped');
    return listed.items;
  }

  /** Logs out of Keycloak and closes sockets. */
  async close(): Promise<void> {
    await this.auth.logout();
    await this.http.close();
  }
}

/**
 * The 5.x UI returned `v1/downloads/<id>` (relative, no leading slash); 10.x may return an
 * absolute URL. Relative links resolve against the site's base URL, with or without the slash.
 */
export function resolveDownloadUrl(base: string, link: string): string {
  const trimmed = link.trim();
  if (/^https?:\/\//i.test(trimmed)) return trimmed;
  return new URL(trimmed.replace(/^\/+/, ''), base.replace(/\/*$/, '/')).toString();
}

/** `yyyy-MM-ddTHH:mm:ss.fffZ`: the format every ZVM build accepts for date filters. */
export function zertoDate(d: Date): string {
  return d.toISOString();
}

function enc(id: string): string {
  return encodeURIComponent(id);
}

function required(value: string | null, site: string, what: string): string {
  if (!value) throw new AppError('zerto_error', `Zerto site '${site}' did not return ${what}.`, { details: { site } });
  return value;
}

