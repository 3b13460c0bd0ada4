// What one change costs the vCenter: its steps (resolve, the state before, the change, its result)
// each name the VM's host, cluster, folder and pool, and they share one read of the target's
// inventory tree per call instead of one each. The next call reads it again (a container renamed
// between two calls is seen by the second).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { ok, startChangeHarness } from './support.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startChangeHarness();
});
afterAll(async () => {
  await h?.close();
});

/** The container views one call created on lab-vc1 (each is one ContainerView retrieval). */
async function viewsOf(call: () => Promise<unknown>): Promise<number> {
  h.lab.callLog.clear();
  await call();
  return h.lab.callLog.find('vcenter:lab-vc1', 'CreateContainerView').length;
}

describe('round trips of one change', () => {
  it('power_off_vm: one view to find the VM by name, one for the tree every step shares', async () => {
    expect(await viewsOf(async () => ok(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true })))).toBe(2);
    // The next call reads the tree again.
    expect(await viewsOf(async () => ok(await h.call('power_on_vm', { target: 'lab-vc1', vm: 'web-01' })))).toBe(2);
  });

  it('mount_iso: the VM, the tree once, and the datastore of the ISO path (checked, then bound)', async () => {
    expect(await viewsOf(async () => ok(await h.call('mount_iso', { target: 'lab-vc1', vm: 'web-02', iso_path: '[ds-nfs-01] iso/ubuntu-24.04.iso' })))).toBe(4);
  });
});
