// Every simulator in the lab records the calls it served into one shared, ordered log. Tests use
// it to prove order across the two simulators (the checkpoint was inserted on the ZVM before the
// mutation reached the vCenter) and that nothing reached a simulator at all (dry run, denials).

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

export class LabCallLog {
  private seq = 0;
  readonly calls: LabCall[] = [];

  record(source: string, method: string, subject?: string): void {
    const call: LabCall = { seq: ++this.seq, source, method, at: Date.now() };
    if (subject !== undefined) call.subject = subject;
    this.calls.push(call);
  }

  /** Calls whose method matches, in order. */
  find(source: string, method: string | RegExp): LabCall[] {
    return this.calls.filter(
      (c) => c.source === source && (typeof method === 'string' ? c.method === method : method.test(c.method)),
    );
  }

  clear(): void {
    this.calls.length = 0;
  }
}
