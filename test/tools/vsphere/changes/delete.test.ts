// delete_vm and unregister_vm through the two-phase flow against the lab: nothing happens on the
// first call, confirm executes exactly once, used and cancelled tokens are refused, the ghost
// record is refused by delete_vm (at proposal time) and cleared by unregister_vm. A test that
// removes a VM removes a clone it made itself, so no test needs another's leftovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, phases, startChangeHarness, vmExists } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A powered-off copy of web-02 (on ds-nfs-01) named `name`: a VM of the test's own to remove. */
async function cloneOfWeb02(name: string): Promise<string> {
  const r = ok(await h.call('clone_vm', { target: 'lab-vc1', vm: 'web-02', name }));
  return (r.new_vm as { moid: string }).moid;
}

describe('delete_vm', () => {
  it('proposes without touching the VM, naming target, host, moid and what will be destroyed', async () => {
    h.lab.callLog.clear();
    const p = ok(await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-02' }));
    expect(p).toMatchObject({ state: 'pending', tool: 'delete_vm', target: 'lab-vc1', target_host: '127.0.0.1' });
    expect(String(p.summary)).toMatch(/^PERMANENTLY DELETE VM "web-02" \(vm-103\) from target "lab-vc1" \(127\.0\.0\.1\)/);
    expect(String(p.summary)).toContain('No safety snapshot');
    expect(p.affected).toEqual([expect.objectContaining({ type: 'vm', name: 'web-02', moid: 'vm-103', power_state: 'poweredOff', connection_state: 'connected', snapshot_count: 0 })]);
    expect((p.affected as Array<{ disks: unknown[] }>)[0]!.disks.length).toBeGreaterThan(0);
    expect(mutatingCalls(h)).toEqual([]);
    expect(vmExists(h, 'vm-103')).toBe(true);
    ok(await h.call('cancel_action', { token: p.token as string }));
  });

  it('concurrent confirms execute it exactly once; the result carries the outcome fields', async () => {
    const moid = await cloneOfWeb02('web-02-doomed');
    const p = ok(await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-02-doomed' }));
    h.lab.callLog.clear();
    const results = await Promise.all(Array.from({ length: 5 }, () => h.call('confirm_action', { token: p.token as string })));
    const good = results.filter((r) => !r.isError);
    expect(good).toHaveLength(1);
    expect(good[0]!.data).toMatchObject({
      state: 'executed', tool: 'delete_vm', target: 'lab-vc1',
      result: { target: 'lab-vc1', deleted_vm: 'web-02-doomed', moid, safety_snapshots: [] },
    });
    expect(String((good[0]!.data.result as { note: string }).note)).toMatch(/Destroy_Task deletes every snapshot/);
    expect(results.filter((r) => r.isError).map((r) => errorOf(r).code)).toEqual(Array(4).fill('confirmation_invalid'));
    expect(mutatingCalls(h)).toEqual(['Destroy_Task']);
    expect(vmExists(h, moid)).toBe(false);
    expect(vmExists(h, 'vm-103')).toBe(true);
    // Reusing the token later is refused the same way, and runs nothing.
    expect(errorOf(await h.call('confirm_action', { token: p.token as string })).code).toBe('confirmation_invalid');
    expect(mutatingCalls(h)).toEqual(['Destroy_Task']);
    const id = h.auditLines().find((l) => l.tool === 'delete_vm' && l.proposal_id === p.proposal_id && l.phase === 'proposed')!.id as string;
    expect(phases(h, 'delete_vm', id)).toEqual(['proposed', 'executing', 'executed']);
  });

  it('a cancelled token and an unknown token are refused as confirmation_invalid; cancel is audited', async () => {
    const p = ok(await h.call('delete_vm', { target: 'lab-vc1', vm: 'vm-105' }));
    const c = ok(await h.call('cancel_action', { token: p.token as string }));
    expect(c).toMatchObject({ state: 'cancelled', tool: 'delete_vm', target: 'lab-vc1' });
    expect(errorOf(await h.call('confirm_action', { token: p.token as string })).code).toBe('confirmation_invalid');
    expect(vmExists(h, 'vm-105')).toBe(true);
    expect(h.auditLines().some((l) => l.tool === 'delete_vm' && l.phase === 'cancelled' && l.proposal_id === p.proposal_id)).toBe(true);
    expect(errorOf(await h.call('confirm_action', { token: 'not-a-real-token-at-all' })).code).toBe('confirmation_invalid');
  });

  it('refuses a powered-on VM at proposal time, pointing at power_off_vm', async () => {
    const e = errorOf(await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-01' }));
    expect(e.code).toBe('invalid_state');
    expect(e.hint).toContain('power_off_vm');
  });

  it('refuses the orphaned ghost-01 up front (no proposal), with the reason and a pointer to unregister_vm', async () => {
    const before = h.auditLines().filter((l) => l.tool === 'delete_vm' && l.phase === 'proposed').length;
    const pending = (ok(await h.call('list_pending_actions')).proposals as Array<{ state: string }>).filter((p) => p.state === 'pending').length;
    const e = errorOf(await h.call('delete_vm', { target: 'lab-vc1', vm: 'ghost-01' }));
    expect(e.code).toBe('invalid_state');
    expect(e.message).toContain('orphaned');
    expect(e.hint).toContain('unregister_vm');
    expect(h.auditLines().filter((l) => l.tool === 'delete_vm' && l.phase === 'proposed')).toHaveLength(before);
    expect((ok(await h.call('list_pending_actions')).proposals as Array<{ state: string }>).filter((p) => p.state === 'pending')).toHaveLength(pending);
    expect(vmExists(h, 'vm-107')).toBe(true);
  });
});

describe('unregister_vm', () => {
  it('removes the ghost record and says the files stay', async () => {
    const moid = await cloneOfWeb02('ghost-02');
    h.lab.vcenters.get('lab-vc1')!.faults.setConnectionState(moid, 'orphaned');
    h.lab.callLog.clear();
    const p = ok(await h.call('unregister_vm', { target: 'lab-vc1', vm: 'ghost-02' }));
    expect(String(p.summary)).toMatch(new RegExp(`^UNREGISTER VM "ghost-02" \\(${moid}\\) from target "lab-vc1"`));
    expect(String(p.summary)).toContain('orphaned');
    expect(String(p.summary)).toContain('files stay on ds-nfs-01');
    expect(mutatingCalls(h)).toEqual([]);
    const c = ok(await h.call('confirm_action', { token: p.token as string }));
    expect(c.result).toMatchObject({ unregistered_vm: 'ghost-02', moid, connection_state: 'orphaned', files_kept_on: ['ds-nfs-01'] });
    expect(mutatingCalls(h)).toEqual(['UnregisterVM']);
    expect(vmExists(h, moid)).toBe(false);
    expect(vmExists(h, 'vm-107')).toBe(true);
    expect(phases(h, 'unregister_vm')).toEqual(['proposed', 'executing', 'executed']);
  });
});
