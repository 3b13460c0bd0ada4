// Test-only switches over a simulated ZVM's behaviour (../behaviour.ts): fault injection and the
// open questions of docs/zerto-notes.md made concrete. Only tests import this; `--lab`
// runs the defaults. `reset()` returns to a well-behaved ZVM.

import type { LabZvm } from '../server.js';
import { LabZvmBehaviour, type RemoteFlrRule } from '../behaviour.js';
import type { LabJournal } from '../journal.js';

export class LabZvmFaults {
  constructor(private readonly b: LabZvmBehaviour) {}

  /** Every token issued so far stops working (as if it expired); clients must log in again. */
  expireTokens(): void {
    this.b.tokenEpoch++;
  }

  slowTasks(ms: number | null): void {
    this.b.taskDurationMs = ms;
  }

  /**
   * Tasks started from now on run until `releaseTasks()`: a "still running" that does not depend
   * on how fast a loaded machine gets through the calls before it.
   */
  holdTasks(): void {
    this.b.taskDurationMs = Number.POSITIVE_INFINITY;
  }

  /** Ends every held task now (their tagged checkpoints are listed as a finished task's are); new tasks run as before. */
  releaseTasks(): void {
    this.b.taskDurationMs = null;
    const now = Date.now();
    for (const release of this.b.heldTaskReleases.splice(0)) release(now);
  }

  /** The next task of `type` (InsertTaggedCP, FlrJournalMount, FlrJournalUnmount, or '*') fails. */
  failNextTask(type = '*', reason = 'Simulated task failure'): void {
    this.b.failNext.set(type, reason);
  }

  /** Tagged checkpoints inserted from now on are listed `ms` after their task completes, or never. */
  lateCheckpoint(ms: number | 'never'): void {
    this.b.checkpointDelayMs = ms;
  }

  /** The next `times` calls of `route` answer `status` with a `{Message}` body. */
  failRoute(route: string, times: number, status = 500, message?: string): void {
    this.b.routeFaults.push({ route, remaining: times, status, ...(message ? { message } : {}) });
  }

  /** Every call of `route` waits `ms` before answering; 0 removes the delay. */
  delayRoute(route: string, ms: number): void {
    if (ms > 0) this.b.routeDelays.set(route.toLowerCase(), ms);
    else this.b.routeDelays.delete(route.toLowerCase());
  }

  /**
   * Every call of `route` does its work at once and answers `ms` later (0 removes it): a client
   * that dies or gives up meanwhile never learns what the ZVM did (a mount it never got the id of).
   */
  delayAnswer(route: string, ms: number): void {
    if (ms > 0) this.b.answerDelays.set(route.toLowerCase(), ms);
    else this.b.answerDelays.delete(route.toLowerCase());
  }

  /** GET /v1/tasks/{id} answers 401 to valid tokens, `times` times (default: always). */
  taskRouteRefusesToken(times = Number.POSITIVE_INFINITY): void {
    this.b.taskRouteRefusals = times;
  }

  flrSessionShape(shape: 'object' | 'array'): void {
    this.b.sessionShape = shape;
  }

  /** A mounted session reports this status instead of MountCompletedSuccessfully. */
  mountedStatus(word: string | number | null): void {
    this.b.mountedStatusWord = word;
  }

  /** Browse page sizes: the size used when none is asked for, and the most one page holds. */
  browsePaging(defaultSize: number, maxSize = defaultSize): void {
    this.b.browseDefaultPageSize = defaultSize;
    this.b.browseMaxPageSize = maxSize;
  }

  /** Browse pages counted from 0 or from 1. */
  browsePageBase(base: 0 | 1): void {
    this.b.browsePageBase = base;
  }

  downloadUrl(form: 'relative' | 'absolute'): void {
    this.b.downloadUrlForm = form;
  }

  /** Download links become absolute and name `origin` (e.g. the appliance's FQDN) instead of the lab's own URL. */
  downloadLinksOn(origin: string | null): void {
    this.b.downloadLinkOrigin = origin;
    if (origin) this.b.downloadUrlForm = 'absolute';
  }

  downloadPackaging(format: 'raw' | 'zip'): void {
    this.b.downloadFormat = format;
  }

  /** The next `times` download GETs fail with 500. */
  failDownload(times = 1): void {
    this.b.failingDownloads = times;
  }

  /** Which ZVM mounts FLR for a VPG replicating to another site. Set it on both ZVMs of the pair. */
  remoteFlr(rule: RemoteFlrRule): void {
    this.b.remoteFlr = rule;
  }

  /** Tagged checkpoint names are listed cut to `max` characters (null: whole), and trimmed when `trim`. */
  checkpointNames(max: number | null, trim = false): void {
    this.b.checkpointNameMaxLength = max;
    this.b.trimCheckpointNames = trim;
  }

  /** Whether VPGs protected in a public cloud take tagged checkpoints. */
  cloudTaggedCheckpoints(rule: 'refuse' | 'accept'): void {
    this.b.cloudTaggedCheckpoints = rule;
  }

  /** The token route insists on `scope=openid`. */
  requireOpenidScope(on = true): void {
    this.b.requireOpenidScope = on;
  }

  /** The appliance behaves as a 9.x Windows ZVM: no Keycloak token route. */
  windowsSessionAuth(on = true): void {
    this.b.windowsSessionAuth = on;
  }

  /** Nulls and names where the Swagger allows them: localsite SiteName, browse MainPathItem.Path, task states. */
  looseShapes(on = true): void {
    this.b.looseShapes = on;
  }

  /** New FLR sessions are not listed for `ms` after the mount. */
  sessionListedAfter(ms: number): void {
    this.b.sessionListedAfterMs = ms;
  }

  /** The task route does not show unmount tasks (404). */
  hideUnmountTasks(on = true): void {
    this.b.unmountTaskHidden = on;
  }

  /** /v1/vms rows leave out these members (e.g. `VmIdentifier`). */
  omitVmMembers(...names: string[]): void {
    this.b.omittedVmMembers = names;
  }

  nullNameRows(on = true): void {
    this.b.nullNameRows = on;
  }

  omitPeerSiteIdentifier(on = true): void {
    this.b.omitPeerSiteIdentifier = on;
  }

  /** VmIdentifiers of VMs on the vCenter with `instanceUuid` use `serverId` instead. */
  vmIdentifierServerId(instanceUuid: string, serverId: string): void {
    this.b.serverIdOverrides.set(instanceUuid.toLowerCase(), serverId);
  }

  /** Back to the defaults of a fresh behaviour (maps and lists emptied in place: routes hold them). */
  reset(): void {
    this.releaseTasks();
    const fresh = new LabZvmBehaviour() as unknown as Record<string, unknown>;
    const live = this.b as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(fresh)) {
      // Expired tokens stay expired.
      if (key === 'tokenEpoch') continue;
      const current = live[key];
      if (current instanceof Map) current.clear();
      else if (Array.isArray(current)) current.length = 0;
      else live[key] = value;
    }
  }
}

/** The switches of one simulated ZVM. */
export function zvmFaults(zvm: Pick<LabZvm, 'behaviour'>): LabZvmFaults {
  return new LabZvmFaults(zvm.behaviour);
}

/** Switches over a lab journal (shared by a VPG's two ZVMs): how long and how much it keeps, and re-syncs. */
export class LabJournalFaults {
  constructor(private readonly j: LabJournal) {}

  /** The VPG's journal keeps checkpoints for `ms` (Zerto allows 1 hour to 30 days; tests go shorter). */
  history(vpgId: string, ms: number): void {
    this.j.historyMs.set(vpgId, ms);
  }

  /** Each VPG's journal holds at most `n` checkpoints; the oldest go, tagged or not. */
  capacity(n: number): void {
    this.j.capacity = n;
    for (const id of this.j.checkpoints.keys()) this.j.trim(id, Date.now());
  }

  /** The VPG re-syncs: every checkpoint is removed. */
  resync(vpgId: string): void {
    this.j.resync(vpgId);
  }
}

export function journalFaults(journal: LabJournal): LabJournalFaults {
  return new LabJournalFaults(journal);
}
