// Shared by the vSphere change-tool tests: a lab harness with a policy whose subject is not the
// guard (checkpoint off, destructive allowed on the lab targets, generous rate limits), and small
// readers of the simulator state and the audit log.
import { startLabHarness, type LabHarness, type LabHarnessOptions } from '../../../support/lab-harness.js';
import { errorOf, type CallResult } from '../../../support/harness.js';

// approval: single: these tests are about the changes, confirmed by the agent's confirm_action.
export const TEST_POLICY = `
defaults:
  approval: single
  read: allow
  mutate: allow
  destructive: deny
  checkpoint: off
  max_bulk_objects: 5
  max_calls_per_minute: 10000
targets:
  lab-vc1:
    destructive: allow
  lab-vc2:
    destructive: allow
protected:
  - name: lab-never-delete-app-01
    vm_patterns: ["app-01"]
`;

/** Every vim25 method that changes something (what a dry run must never send). */
export const MUTATING_METHODS = /(_Task$|^ShutdownGuest$|^RebootGuest$|^UnregisterVM$)/;

export async function startChangeHarness(opts: LabHarnessOptions = {}): Promise<LabHarness> {
  const h = await startLabHarness({ taskMs: 20, policyYaml: TEST_POLICY, ...opts });
  // Cache the advertised output schemas: the SDK client then validates every structured result.
  await h.client.listTools();
  return h;
}

export function vmState(h: LabHarness, moid: string, target = 'lab-vc1') {
  const v = h.lab.vcenters.get(target)!.model.vm(moid);
  if (!v.exists) throw new Error(`${moid} does not exist on ${target}`);
  return v;
}

export function vmExists(h: LabHarness, moid: string, target = 'lab-vc1'): boolean {
  return h.lab.vcenters.get(target)!.model.vm(moid).exists;
}

/** Mutating vim25 methods served since the log was last cleared. */
export function mutatingCalls(h: LabHarness): string[] {
  return h.lab.callLog.calls.filter((c) => MUTATING_METHODS.test(c.method)).map((c) => c.method);
}

/** Audit phases of one tool (optionally only lines with one audit id), in order. */
export function phases(h: LabHarness, tool: string, id?: string): string[] {
  return h.auditLines().filter((l) => l.tool === tool && (id === undefined || l.id === id)).map((l) => String(l.phase));
}

export function ok(r: CallResult): Record<string, unknown> {
  if (r.isError) throw new Error(`expected success, got ${r.text}`);
  return r.data;
}

/** Proposes a destructive call, checks it is a proposal, confirms it and returns confirm's result. */
export async function proposeAndConfirm(h: LabHarness, tool: string, args: Record<string, unknown>) {
  const p = ok(await h.call(tool, args));
  if (p.state !== 'pending') throw new Error(`expected a proposal, got ${JSON.stringify(p)}`);
  const c = await h.call('confirm_action', { token: p.token as string });
  return { proposal: p, confirm: c };
}

export { errorOf };
