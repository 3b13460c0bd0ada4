// Policy on the change tools: the bundled lab policy protects app-01 from every destructive tool
// (override does not help), an unless_override rule says override helps and honours it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, startChangeHarness, TEST_POLICY, vmState } from './support.js';

describe('policy on change tools', () => {
  let lab: LabHarness;
  let custom: LabHarness;
  beforeAll(async () => {
    // The bundled lab policy, as `--lab` runs it; denials happen before the guard, so Zerto is not involved.
    lab = await startLabHarness({ taskMs: 20 });
    custom = await startChangeHarness({
      policyYaml: TEST_POLICY + `rules:
  - name: web-power-needs-override
    match:
      tools: [power_off_vm]
      vm_patterns: ["web-*"]
    action: deny
    unless_override: true
`,
    });
  });
  afterAll(async () => {
    await lab?.close();
    await custom?.close();
  });

  it.each([
    ['delete_vm', { vm: 'app-01' }],
    ['revert_snapshot', { vm: 'app-01', snapshot: 'before-patch' }],
    ['bulk_vm_action', { action: 'delete_all_snapshots', name_regex: 'app-0.' }],
  ] as Array<[string, Record<string, unknown>]>)('%s on app-01 is denied by the protected entry, even with override', async (tool, args) => {
    for (const override of [false, true]) {
      const e = errorOf(await lab.call(tool, { target: 'lab-vc1', ...args, override }));
      expect(e.code).toBe('policy_denied');
      expect(e.message).toContain("protected by 'lab-never-delete-app-01'");
      expect(e.details).toMatchObject({ rule: 'lab-never-delete-app-01', override_would_help: false });
      expect(e.hint).toMatch(/operator must change policy\.yaml/);
    }
    const denied = lab.auditLines().filter((l) => l.tool === tool);
    expect(denied.map((l) => l.phase)).toEqual(['denied', 'denied']);
    expect(lab.runtime.built.services.confirmations.list()).toEqual([]);
  });

  it('an unless_override rule names itself and says override helps; override=true then runs the change', async () => {
    custom.lab.vcenters.get('lab-vc1')!.faults.setPowerState('vm-102', 'poweredOn');
    custom.lab.callLog.clear();
    const e = errorOf(await custom.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true }));
    expect(e.code).toBe('policy_denied');
    expect(e.message).toContain("denied by rule 'web-power-needs-override' (pass override=true to proceed)");
    expect(e.details).toMatchObject({ rule: 'web-power-needs-override', override_would_help: true });
    expect(e.hint).toContain('override=true');
    expect(mutatingCalls(custom)).toEqual([]);
    const r = ok(await custom.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true, override: true }));
    expect(r.power_state).toBe('poweredOff');
    expect(vmState(custom, 'vm-102').powerState).toBe('poweredOff');
    const executing = custom.auditLines().filter((l) => l.tool === 'power_off_vm' && l.phase === 'executing').at(-1)!;
    expect((executing.decision as { reason: string }).reason).toContain('overridden by override=true');
  });

  it('destructive tools are denied on a target whose policy denies them (the defaults)', async () => {
    // The bundled lab policy allows destructive on lab targets only; an edit to deny lab-vc2 applies
    // at once (and the harness's own policy, its rule included, is put back after).
    await custom.withPolicy(TEST_POLICY.replace('  lab-vc2:\n    destructive: allow\n', ''), async () => {
      const e = errorOf(await custom.call('delete_vm', { target: 'lab-vc2', vm: 'scratch-01' }));
      expect(e.code).toBe('policy_denied');
      expect(e.message).toMatch(/destructive is denied by the policy defaults/);
    });
  });
});
