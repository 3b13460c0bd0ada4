// Switches the tests and the lab flip to make the simulated ZVM misbehave the way real appliances
// do (or might: several of these model open questions in reference/zerto-api.md §12). Each fault
// is plain state the routes consult; `reset()` returns to a well-behaved ZVM.

export interface RouteFault {
  /** Route template as recorded in the call log, e.g. `GET /v1/vms` or `POST /v1/flrs/:id/download`. */
  route: string;
  remaining: number;
  status: number;
  message?: string;
}

export class LabZvmFaults {
  /** Overrides the task duration for tasks started from now on. */
  taskDurationMs: number | null = null;
  /** Task types (or '*') whose next task fails, with the CompleteReason to report. */
  readonly failNext = new Map<string, string>();
  /** Delay between a tagged insert task completing and the checkpoint being listed. */
  checkpointDelayMs: number | 'never' = 0;
  readonly routeFaults: RouteFault[] = [];
  /** Route template -> extra latency before answering (a hung or overloaded appliance). */
  readonly routeDelays = new Map<string, number>();
  /** Q7: GET /v1/flrs/{id} as a single object or a one-element array. */
  sessionShape: 'object' | 'array' = 'array';
  /** Q12: download link relative (`v1/downloads/...`) or absolute. */
  downloadUrlForm: 'relative' | 'absolute' = 'relative';
  /** Q12: single-file downloads raw or wrapped in a ZIP. */
  downloadFormat: 'raw' | 'zip' = 'raw';
  /** Download GETs left to fail with 500. */
  failingDownloads = 0;
  /** Bumped by expireTokens(): tokens issued before are rejected. */
  tokenEpoch = 0;
  /**
   * vCenter instanceUuid -> the server id this ZVM uses in VmIdentifiers instead. Models the
   * inferred `<instanceUuid>.<moref>` mapping being wrong for a real appliance (DESIGN section 6).
   */
  readonly serverIdOverrides = new Map<string, string>();

  /** Every token issued so far stops working (as if it expired); clients must log in again. */
  expireTokens(): void {
    this.tokenEpoch++;
  }

  slowTasks(ms: number | null): void {
    this.taskDurationMs = ms;
  }

  /** The next task of `type` (InsertTaggedCP, FlrJournalMount, FlrJournalUnmount, or '*') fails. */
  failNextTask(type = '*', reason = 'Simulated task failure'): void {
    this.failNext.set(type, reason);
  }

  /** Tagged checkpoints inserted from now on are listed `ms` after their task completes, or never. */
  lateCheckpoint(ms: number | 'never'): void {
    this.checkpointDelayMs = ms;
  }

  /** The next `times` calls of `route` answer `status` with a `{Message}` body. */
  failRoute(route: string, times: number, status = 500, message?: string): void {
    this.routeFaults.push({ route, remaining: times, status, ...(message ? { message } : {}) });
  }

  /** Every call of `route` waits `ms` before answering; 0 removes the delay. */
  delayRoute(route: string, ms: number): void {
    if (ms > 0) this.routeDelays.set(route.toLowerCase(), ms);
    else this.routeDelays.delete(route.toLowerCase());
  }

  flrSessionShape(shape: 'object' | 'array'): void {
    this.sessionShape = shape;
  }

  downloadUrl(form: 'relative' | 'absolute'): void {
    this.downloadUrlForm = form;
  }

  downloadPackaging(format: 'raw' | 'zip'): void {
    this.downloadFormat = format;
  }

  /** The next `times` download GETs fail with 500. */
  failDownload(times = 1): void {
    this.failingDownloads = times;
  }

  reset(): void {
    this.taskDurationMs = null;
    this.failNext.clear();
    this.checkpointDelayMs = 0;
    this.routeFaults.length = 0;
    this.routeDelays.clear();
    this.sessionShape = 'array';
    this.downloadUrlForm = 'relative';
    this.downloadFormat = 'raw';
    this.failingDownloads = 0;
    this.serverIdOverrides.clear();
  }

  /** VmIdentifiers of VMs on the vCenter with `instanceUuid` use `serverId` instead. */
  vmIdentifierServerId(instanceUuid: string, serverId: string): void {
    this.serverIdOverrides.set(instanceUuid.toLowerCase(), serverId);
  }

  /** The VmIdentifier as this ZVM reports it. */
  reportedVmIdentifier(identifier: string): string {
    const dot = identifier.lastIndexOf('.');
    const override = dot > 0 ? this.serverIdOverrides.get(identifier.slice(0, dot).toLowerCase()) : undefined;
    return override ? `${override}${identifier.slice(dot)}` : identifier;
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
}
