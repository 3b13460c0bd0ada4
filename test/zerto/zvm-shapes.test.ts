// Where the ZVM's answers are undocumented, the client works either way: nulls the Swagger allows
// and task states as names, a session listed only a moment after its mount, and an unmount whose
// task the ZVM does not show (the session list decides, not the 404).

import { afterEach, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { waitForMount } from '../../src/zerto/flr-browse.js';
import { unmountFlrSession } from '../../src/zerto/flr-unmount.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { labLocator, startLab, type LabHandle } from './support/lab.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

async function pinAndRestore(l: LabHandle, change: string) {
  const found = await findProtection(l.client, 'app-01', { locator: labLocator() });
  const { tag } = await pinTaggedCheckpoint(l.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit', vm: 'app-01', changeId: change, pollMs: 40, timeoutMs: 10_000 });
  return recoverFile(l.client, { pollMs: 40, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: l.tmp });
}

async function mountOne(l: LabHandle): Promise<string> {
  const cp = l.zvm.state.listedCheckpoints(VPG_APP).at(-1)!;
  const id = await l.client.mountFlr({ vpgId: VPG_APP, vmId: APP01, checkpointId: cp.id });
  await waitForMount(l.client, id, { deadline: Date.now() + 10_000, pollMs: 40 });
  return id;
}

describe('answers the Swagger allows', () => {
  it.each([false, true])('pins and restores with null SiteName, null MainPathItem.Path and task states as names: %s', async (loose) => {
    lab = await startLab();
    zvmFaults(lab.zvm).looseShapes(loose);
    const res = await pinAndRestore(lab, `loose-${loose}`);
    expect(res.content).toContain('listen_port = 8080');
    expect((await lab.client.siteContext()).local.name).toBe('lab-zvm');
  });
});

describe('a session listed a moment after its mount', () => {
  it.each([0, 700])('waits for a session the ZVM lists %i ms after the mount', async (ms) => {
    lab = await startLab();
    zvmFaults(lab.zvm).sessionListedAfter(ms);
    expect((await pinAndRestore(lab, `late-${ms}`)).unmount.status).toBe('unmounted');
  });
});

describe('an unmount whose task the ZVM does not show', () => {
  it('is unmounted once the session is no longer listed', async () => {
    lab = await startLab();
    const id = await mountOne(lab);
    zvmFaults(lab.zvm).hideUnmountTasks();
    expect(await unmountFlrSession(lab.client, id, { waitMs: 5_000, pollMs: 40 })).toMatchObject({ status: 'unmounted' });
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
  });

  it('is only requested while the ZVM still lists the session', async () => {
    lab = await startLab();
    const id = await mountOne(lab);
    zvmFaults(lab.zvm).hideUnmountTasks();
    zvmFaults(lab.zvm).slowTasks(30_000);
    const report = await unmountFlrSession(lab.client, id, { waitMs: 400, pollMs: 40 });
    expect(report).toMatchObject({ status: 'requested' });
    expect(report.message).toMatch(/still lists the session/);
  });

  it('is unmounted when the task is shown and completes', async () => {
    lab = await startLab();
    const id = await mountOne(lab);
    expect(await unmountFlrSession(lab.client, id, { waitMs: 5_000, pollMs: 40 })).toMatchObject({ status: 'unmounted' });
  });
});
