// One ZVM REST client per configured site: the typed /v1 endpoints this product uses, nothing
// more. Auth, retries, timeouts and parsing live below (auth.ts, rest.ts, schemas.ts); the domain
// operations (find-protection, pin-checkpoint, recover-file) live above and never see HTTP.

import { AppError } from '../core/errors.js';
import type { SecretSource } from '../core/secrets.js';
import { TokenManager } from './auth.js';
import { ZvmHttp, type RawResponse } from './http.js';
import type { ZertoLogger } from './logger.js';
import { ZvmRest } from './rest.js';
import {
  ActionResult, CheckpointList, FlrSessionList, FlrSessionOne, LocalSite, PathInformation, PeerSiteList, Task,
  Vpg, VpgList, VmRowList, type Checkpoint, type FlrSession, type PeerSite, type VmRow,
} from './schemas.js';
import type { ZertoSiteConfig } from './site-config.js';

export interface ZvmClientOptions {
  site: ZertoSiteConfig;
  secrets: SecretSource;
  logger?: ZertoLogger;
  /** Per-request timeout for /v1 and token calls. */
  requestTimeoutMs?: number;
  /** How long /v1/localsite and /v1/peersites answers are reused. */
  siteCacheMs?: number;
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

export class ZvmClient {
  readonly site: ZertoSiteConfig;
  private readonly http: ZvmHttp;
  private readonly auth: TokenManager;
  private readonly rest: ZvmRest;
  private readonly siteCacheMs: number;
  private siteCache: { at: number; value: Promise<SiteContext> } | undefined;

  constructor(opts: ZvmClientOptions) {
    this.site = opts.site;
    const timeoutMs = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.http = new ZvmHttp(opts.site);
    this.auth = new TokenManager({ site: opts.site, http: this.http, secrets: opts.secrets, timeoutMs, ...(opts.logger ? { logger: opts.logger } : {}) });
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
    return this.rest.call('GET', '/v1/peersites', { schema: PeerSiteList, signal });
  }

  /** The local site and its peers, cached: identities and types do not change between calls. */
  async siteContext(signal?: AbortSignal): Promise<SiteContext> {
    const now = Date.now();
    if (!this.siteCache || now - this.siteCache.at > this.siteCacheMs) {
      const value = (async (): Promise<SiteContext> => {
        const [local, peers] = await Promise.all([this.localSite(signal), this.peerSites(signal)]);
        return {
          local: { id: local.SiteIdentifier, name: local.SiteName, type: local.SiteType ?? null },
          peers: peers.map((p) => ({ id: p.SiteIdentifier, name: p.PeerSiteName ?? p.SiteName ?? p.SiteIdentifier, type: p.SiteType ?? null })),
        };
      })();
      this.siteCache = { at: now, value };
      value.catch(() => {
        if (this.siteCache?.value === value) this.siteCache = undefined;
      });
    }
    return this.siteCache.value;
  }

  async listVms(filter: VmFilter = {}, signal?: AbortSignal): Promise<VmRow[]> {
    return this.rest.call('GET', '/v1/vms', { schema: VmRowList, query: { ...filter }, signal });
  }

  async listVpgs(signal?: AbortSignal): Promise<Vpg[]> {
    return this.rest.call('GET', '/v1/vpgs', { schema: VpgList, signal });
  }

  async getVpg(vpgId: string, signal?: AbortSignal): Promise<Vpg> {
    return this.rest.call('GET', `/v1/vpgs/${enc(vpgId)}`, { schema: Vpg, signal });
  }

  /** Starts a tagged checkpoint insert; returns the task id. Never retried (it would duplicate). */
  async insertTaggedCheckpoint(vpgId: string, checkpointName: string, signal?: AbortSignal): Promise<string> {
    const id = await this.rest.call('POST', `/v1/vpgs/${enc(vpgId)}/checkpoints`, { schema: ActionResult, body: { checkpointName }, signal });
    return required(id, this.site.name, 'the checkpoint insert task id');
  }

  async listCheckpoints(vpgId: string, range: { startDate?: Date; endDate?: Date } = {}, signal?: AbortSignal): Promise<Checkpoint[]> {
    return this.rest.call('GET', `/v1/vpgs/${enc(vpgId)}/checkpoints`, {
      schema: CheckpointList, signal,
      query: { startDate: range.startDate ? zertoDate(range.startDate) : undefined, endDate: range.endDate ? zertoDate(range.endDate) : undefined },
    });
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

  /** One session, or null when the ZVM no longer knows it (404, or an empty array per Q7). */
  async getFlrSession(sessionId: string, signal?: AbortSignal): Promise<FlrSession | null> {
    try {
      return await this.rest.call('GET', `/v1/flrs/${enc(sessionId)}`, { schema: FlrSessionOne, signal });
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') return null;
      throw err;
    }
  }

  async listFlrSessions(filter: { vmIdentifier?: string } = {}, signal?: AbortSignal): Promise<FlrSession[]> {
    return this.rest.call('GET', '/v1/flrs', { schema: FlrSessionList, query: { ...filter }, signal });
  }

  /**
   * Browses a mounted session; '' lists partitions. Only `path` is sent: Q10 leaves the paging
   * base unknown, and a wrong pageNumber could silently skip the first page.
   */
  async browseFlr(sessionId: string, path: string, signal?: AbortSignal): Promise<PathInformation> {
    return this.rest.call('POST', `/v1/flrs/${enc(sessionId)}/browse`, { schema: PathInformation, body: { path }, idempotent: true, signal });
  }

  /** Asks for a download link for the given FLR paths; the link may be relative or absolute (Q12). */
  async requestFlrDownload(sessionId: string, paths: string[], signal?: AbortSignal): Promise<string> {
    const url = await this.rest.call('POST', `/v1/flrs/${enc(sessionId)}/download`, { schema: ActionResult, body: { pathList: paths }, signal });
    return required(url, this.site.name, 'the download URL');
  }

  /** GETs a download link. The bearer goes only to the ZVM's own origin; never to a third host. */
  async fetchDownload(link: string, opts: { signal?: AbortSignal | undefined; maxBytes: number; timeoutMs?: number }): Promise<{ url: string; response: RawResponse }> {
    const url = resolveDownloadUrl(this.site.url, link);
    const sameOrigin = new URL(url).origin === new URL(this.site.url).origin;
    const response = await this.rest.raw(url, { bearer: sameOrigin, signal: opts.signal, maxBytes: opts.maxBytes, timeoutMs: opts.timeoutMs ?? 120_000 });
    if (response.status < 200 || response.status >= 300) throw this.rest.failure('GET', url, response);
    return { url, response };
  }

  /** Unmounts (ends) an FLR session; returns the string the ZVM answers (probably a task id). */
  async unmountFlr(sessionId: string, signal?: AbortSignal): Promise<string | null> {
    return this.rest.call('DELETE', `/v1/flrs/${enc(sessionId)}`, { schema: ActionResult, signal });
  }

  /** Logs out of Keycloak and closes sockets. */
  async close(): Promise<void> {
    await this.auth.logout();
    await this.http.close();
  }
}

/**
 * Q12: the 5.x UI returned `v1/downloads/<id>` (relative, no leading slash); 10.x may return an
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

