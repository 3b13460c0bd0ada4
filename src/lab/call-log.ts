// Every simulator in the lab records the calls it served into one shared, ordered log. Tests use
// it to prove order across the two simulators (the checkpoint was inserted on the ZVM before the
// mutation reached the vCenter) and that nothing reached a simulator at all (dry run, denials).
// It is a ring buffer: a long `--lab` session keeps the newest `capacity` calls and stays flat in
// memory instead of growing by a record per call forever.

export interface LabCall {
  /** Monotonic across every simulator sharing this log. */
  seq: number;
  source: string;
  /** vim25 method name (`PowerOffVM_Task`) or HTTP route (`POST /v1/vpgs/:id/checkpoints`). */
  method: string;
  /** Object the call was about (moid, VPG id, ...), when there is one. */
  subject?: string;
  at: number;
}

/** Enough for any test's window (a whole e2e run is a few thousand calls), small for a day of `--lab`. */
export const DEFAULT_CALL_LOG_CAPACITY = 20_000;

export class LabCallLog {
  private seq = 0;
  private readonly ring: Array<LabCall | undefined>;
  /** Index the next call is written to. */
  private next = 0;
  private size = 0;

  constructor(readonly capacity = DEFAULT_CALL_LOG_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`call log capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array<LabCall | undefined>(capacity);
  }

  record(source: string, method: string, subject?: string): void {
    const call: LabCall = { seq: ++this.seq, source, method, at: Date.now() };
    if (subject !== undefined) call.subject = subject;
    this.ring[this.next] = call;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.size + 1, this.capacity);
  }

  /** The retained calls, oldest first (a copy). */
  get calls(): LabCall[] {
    const out: LabCall[] = [];
    const start = (this.next - this.size + this.capacity) % this.capacity;
    for (let i = 0; i < this.size; i++) out.push(this.ring[(start + i) % this.capacity]!);
    return out;
  }

  /** Calls recorded since the log began that fell out of the ring. */
  get dropped(): number {
    return this.seq - this.size;
  }

  /** Calls whose method matches, in order. */
  find(source: string, method: string | RegExp): LabCall[] {
    return this.calls.filter(
      (c) => c.source === source && (typeof method === 'string' ? c.method === method : method.test(c.method)),
    );
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.size = 0;
  }
}
