// A new tool states its preconditions as data and gets their behaviour from the pipeline, with no
// code for them in its handler: `singleTarget` denies target "all" (audited, no vCenter touched),
// `safetySnapshot: 'before'` snapshots the VM before the change, adds it to the result, and stops
// the change when the snapshot fails. Run against the lab over the real wire.
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defineTool } from '../../../../src/tools/define.js';
import { ChangeCommonArgs, TargetArg, VmArg } from '../../../../src/tools/args.js';
import { resolveChangeVm, vmResolution } from '../../../../src/tools/vsphere/support/change-support.js';
import { SafetySnapshotSchema } from '../../../../src/pipeline/safety-snapshot.js';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, phases, proposeAndConfirm, startChangeHarness, vmState } from './support.js';

const handled: string[] = [];

/** The handler only records that it ran: both preconditions come from the declaration. */
const testRevert = defineTool({
  name: 'test_revert_state',
  title: 'Test revert-type change',
  description: 'Test-only revert-type change declared with singleTarget and safetySnapshot.',
  category: 'destructive',
  toolset: 'lab',
  singleTarget: true,
  safetySnapshot: 'before',
  idempotent: false,
  input: z.object({ target: TargetArg, vm: VmArg, ...ChangeCommonArgs }),
  output: z.object({ vm: z.string(), moid: z.string(), safety_snapshots: z.array(SafetySnapshotSchema) }),
  resolve: async (args, ctx) => {
    const vm = await resolveChangeVm(ctx, args);
    return vmResolution(vm, `test revert of VM '${vm.details.name}'`);
  },
  async execute(_args, { vm }) {
    handled.push(vm.moid);
    return { vm: vm.name, moid: vm.moid };
  },
});

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness({ extraTools: [testRevert] });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  handled.length = 0;
});

describe('preconditions declared on a new tool', () => {
  it('singleTarget: target "all" is denied by policy and audited as all; no vCenter is asked and the handler never runs', async () => {
    h.lab.callLog.clear();
    const e = errorOf(await h.call('test_revert_state', { target: 'all', vm: 'test-01' }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toContain("target 'all'");
    expect(e.hint).toMatch(/exactly one target/);
    expect(h.auditLines().at(-1)).toMatchObject({ tool: 'test_revert_state', phase: 'denied', target: 'all', decision: { rule: 'target-all' } });
    expect(h.lab.callLog.calls).toEqual([]);
    expect(handled).toEqual([]);
  });

  it('safetySnapshot: the VM is snapshotted before the handler runs, and the snapshot is in the result', async () => {
    h.lab.callLog.clear();
    const { confirm } = await proposeAndConfirm(h, 'test_revert_state', { target: 'lab-vc1', vm: 'test-01' });
    const result = ok(confirm).result as { safety_snapshots: Array<{ name: string; moid: string; vm: string; target: string }> };
    expect(result.safety_snapshots).toHaveLength(1);
    expect(result.safety_snapshots[0]).toMatchObject({ vm: 'test-01', target: 'lab-vc1', name: expect.stringMatching(/^mcp-safety-\d+-[0-9a-f]{8}$/) });
    expect(vmState(h, 'vm-108').snapshots.map((s) => s.moid)).toContain(result.safety_snapshots[0]!.moid);
    expect(mutatingCalls(h)).toEqual(['CreateSnapshot_Task']);
    expect(handled).toEqual(['vm-108']);
    expect(phases(h, 'test_revert_state').slice(-3)).toEqual(['proposed', 'executing', 'executed']);
  });

  it('safetySnapshot: a failed snapshot stops the change before the handler, audited as failed', async () => {
    h.lab.vcenters.get('lab-vc1')!.faults.failNextTask('CreateSnapshot_Task', 'Insufficient disk space on datastore (simulated)');
    const { confirm } = await proposeAndConfirm(h, 'test_revert_state', { target: 'lab-vc1', vm: 'test-01' });
    const e = errorOf(confirm);
    expect(e.message).toContain('so the test_revert_state was NOT run');
    expect(e.details).toMatchObject({ step: 'safety_snapshot', moid: 'vm-108' });
    expect(handled).toEqual([]);
    expect(h.auditLines().at(-1)).toMatchObject({ tool: 'test_revert_state', phase: 'failed', detail: { code: 'task_failed' } });
  });
});
