// How the simulated ZVM behaves where real appliances differ or the evidence is open
// (docs/zerto-notes.md). Plain state the routes consult; the
// defaults are a well-behaved 10.x appliance as far as the evidence goes. `--lab` only ever reads
// it. Tests flip it through testing/faults.ts, which the shipped lab does not import.

/** Which ZVM accepts FLR for a VPG whose protected and recovery sites differ (unconfirmed: docs/zerto-notes.md). */
export type RemoteFlrRule = 'recovery-site' | 'protected-site' | 'either' | 'none';

export interface RouteFault {
  /** Route template as recorded in the call log, e.g. `GET /v1/vms` or `POST /v1/flrs/:id/download`. */
  route: string;
  remaining: number;
  status: number;
  message?: string;
}

export class LabZvmBehaviour {
  /** Overrides the task duration for tasks started from now on (Infinity: held until released). */
  taskDurationMs: number | null = null;
  /** What ends each held task (and lists its checkpoint) when a test releases them. */
  readonly heldTaskReleases: Array<(now: number) => void> = [];
  /** Task types (or '*') whose next task fails, with the CompleteReason to report. */
  readonly failNext = new Map<string, string>();
  /** Delay between a tagged insert task completing and the checkpoint being listed. */
  checkpointDelayMs: number | 'never' = 0;
  readonly routeFaults: RouteFault[] = [];
  /** Route template -> extra latency before answering (a hung or overloaded appliance). */
  readonly routeDelays = new Map<string, number>();
  /** Route template -> delay between doing the work and sending the answer (the answer is late, the effect is not). */
  readonly answerDelays = new Map<string, number>();
  /**
   * GET /v1/tasks/{id} answers 401 to a valid token this many more times (Infinity: always).
   * zvml-python-sdk reads such a 401 as "task completed and no longer accessible" (docs/zerto-notes.md).
   */
  taskRouteRefusals = 0;
  /** GET /v1/flrs/{id} as a single object (7.x docs) or a one-element array (10.x Swagger). */
  sessionShape: 'object' | 'array' = 'array';
  /** Reported instead of `MountCompletedSuccessfully` once mounted (the 10.x vocabulary is open). */
  mountedStatusWord: string | number | null = null;
  /** Browse pages when asked and by default; pageSize above the maximum is capped. */
  browseDefaultPageSize = 50;
  browseMaxPageSize = 200;
  /** Browse `pageNumber` counts from 1 (0 read as 1) or from 0: undocumented either way. */
  browsePageBase: 0 | 1 = 1;
  /** Download link relative (`v1/downloads/...`) or absolute. */
  downloadUrlForm: 'relative' | 'absolute' = 'relative';
  /** Absolute links name this origin (another host name of the appliance) instead of our own. */
  downloadLinkOrigin: string | null = null;
  /** Single-file downloads raw or wrapped in a ZIP. */
  downloadFormat: 'raw' | 'zip' = 'raw';
  /** Download GETs left to fail with 500. */
  failingDownloads = 0;
  /** Which ZVM mounts FLR for a VPG that replicates to another site (7.x docs: the recovery site). */
  remoteFlr: RemoteFlrRule = 'recovery-site';
  /**
   * Whether a VPG protected in a public cloud takes tagged checkpoints. No source says either way
   * (docs/zerto-notes.md); the default refuses with a 400, as other invalid operations answer.
   */
  cloudTaggedCheckpoints: 'refuse' | 'accept' = 'refuse';
  /**
   * Whether CloneStart is accepted while the VPG runs a failover test (R15). No source says; the lab
   * accepts by default (a clone reads the journal, a test writes to scratch volumes).
   */
  cloneDuringTest: 'allow' | 'refuse' = 'allow';
  /** /v1/vms and /v1/vpgs carry one extra row whose name is null (the Swagger allows it). */
  nullNameRows = false;
  /** /v1/peersites leaves `SiteIdentifier` out, as the Swagger's PeerSiteApi does (docs/zerto-notes.md). */
  omitPeerSiteIdentifier = false;
  /** Tagged checkpoint names are kept only up to this length (null: whole); the limit is undocumented. */
  checkpointNameMaxLength: number | null = null;
  /** Tagged checkpoint names are stored trimmed and with inner whitespace collapsed. */
  trimCheckpointNames = false;
  /** The token route refuses a request without `scope=openid` (as Zerto's ZIC realm documents). */
  requireOpenidScope = false;
  /** A 9.x Windows ZVM: no Keycloak (the token route is a 404); sessions come from /v1/session/add. */
  windowsSessionAuth = false;
  /**
   * Answers use what the Swagger allows and the lab otherwise never sends: a null `SiteName` in
   * /v1/localsite, a null `Path` in browse's `MainPathItem`, and task states as names.
   */
  looseShapes = false;
  /** A new FLR session is not listed (GET /v1/flrs/{id} answers 404) for this long after the mount. */
  sessionListedAfterMs = 0;
  /** GET /v1/tasks/{id} answers 404 for unmount tasks (a route that shows only tasks run at its own site). */
  unmountTaskHidden = false;
  /** /v1/vms rows leave these members out: a shape the client does not expect (for `check --zerto`). */
  omittedVmMembers: string[] = [];
  /** Bumped to expire tokens: tokens issued before are rejected. */
  tokenEpoch = 0;
  /**
   * vCenter instanceUuid -> the server id this ZVM uses in VmIdentifiers instead. Models the
   * inferred `<instanceUuid>.<moref>` mapping being wrong for a real appliance.
   */
  readonly serverIdOverrides = new Map<string, string>();

  /** The VmIdentifier as this ZVM reports it. */
  reportedVmIdentifier(identifier: string): string {
    const dot = identifier.lastIndexOf('.');
    const override = dot > 0 ? this.serverIdOverrides.get(identifier.slice(0, dot).toLowerCase()) : undefined;
    return override ? `${override}${identifier.slice(dot)}` : identifier;
  }

  /** The name a tagged checkpoint is listed under, after this ZVM's cutting and trimming. */
  storedCheckpointName(name: string): string {
    const trimmed = this.trimCheckpointNames ? name.trim().replace(/\s+/g, ' ') : name;
    return this.checkpointNameMaxLength === null ? trimmed : trimmed.slice(0, this.checkpointNameMaxLength);
  }

  /** Consumes one injected failure for `route`, if any. */
  takeRouteFault(route: string): { status: number; message: string } | null {
    const f = this.routeFaults.find((r) => r.route.toLowerCase() === route.toLowerCase() && r.remaining > 0);
    if (!f) return null;
    f.remaining--;
    return { status: f.status, message: f.message ?? `Simulated failure of ${route}` };
  }

  /** Consumes the failure queued for a task type, if any. */
  takeTaskFailure(type: string): string | undefined {
    for (const key of [type, '*']) {
      const reason = this.failNext.get(key);
      if (reason !== undefined) {
        this.failNext.delete(key);
        return reason;
      }
    }
    return undefined;
  }

  /** Consumes one "task route refuses a valid token". */
  takeTaskRouteRefusal(): boolean {
    if (this.taskRouteRefusals <= 0) return false;
    this.taskRouteRefusals--;
    return true;
  }
}
