// A guard call naming VMs on two vSphere targets is decided per vSphere target and denied if any
// target denies, not under the Zerto site's policy alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { errorOf, ok } from './support.js';

const POLICY = `
defaults: {checkpoint: best_effort, max_calls_per_minute: 10000}
targets:
  lab-vc2: {mutate: deny}
`;

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, zvmTaskMs: 50 });
  ok(await h.call('zerto_add_mutating_tool', { tool: 'ansible/run_playbook', vm_arg: 'hosts' }));
});
afterAll(async () => h?.close());

describe('zerto_guard_before_mutate across vSphere targets', () => {
  it('is denied when one of the VMs\' targets denies, and pins nothing', async () => {
    const before = [...h.lab.zvms.get('lab-zvm')!.state.checkpoints.values()].flat().filter((c) => c.tag?.includes('change=two-targets')).length;
    const e = errorOf(await h.call('zerto_guard_before_mutate', { tool: 'ansible/run_playbook', args: { hosts: ['app-01', 'erp-01'] }, change_id: 'two-targets' }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toContain('lab-vc2');
    const after = [...h.lab.zvms.get('lab-zvm')!.state.checkpoints.values()].flat().filter((c) => c.tag?.includes('change=two-targets')).length;
    expect(after).toBe(before);
    const line = h.auditLines().filter((l) => l.tool === 'zerto_guard_before_mutate').at(-1)!;
    expect(line).toMatchObject({ phase: 'denied', decision: { allowed: false } });
  });

  it('a VM of the allowed target alone is guarded', async () => {
    const r = ok(await h.call('zerto_guard_before_mutate', { tool: 'ansible/run_playbook', args: { hosts: ['app-01'] }, change_id: 'one-target' }));
    expect(r.guarded).toBe(true);
  });
});
