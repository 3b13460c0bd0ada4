// FLR for a VPG that replicates to another site (vpg-erp-dr: lab-zvm -> lab-zvm-dr), through the
// real client against two simulated ZVMs that share one journal: the mount runs at whichever
// site accepts it, asking pointsInTime's CanMount first, and is refused only when neither does.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { LabJournal, type RemoteFlrRule } from '../../src/lab/zvm/index.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { siteClientLookup } from '../../src/zerto/flr-site.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { labLocator, startLab, thrown, type LabHandle } from './support/lab.js';

const ERP01 = labVmIdentifier('lab-vc2', 'vm-201');
let main: LabHandle;
let dr: LabHandle;
let tag: string;
beforeAll(async () => {
  const journal = new LabJournal();
  main = await startLab({ journal });
  dr = await startLab({ site: 'lab-zvm-dr', journal, guests: main.guests, callLog: main.callLog });
  const found = await findProtection(main.client, 'erp-01', { locator: labLocator() });
  tag = (await pinTaggedCheckpoint(main.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit', vm: 'erp-01', changeId: 'remote-1', pollMs: 40 })).tag;
  main.guests.write(ERP01, '/etc/erp/erp.conf', 'tenant = broken\n');
});
afterAll(async () => {
  await main?.close();
  await dr?.close();
});
afterEach(() => [main, dr].forEach((l) => zvmFaults(l.zvm).reset()));

const rule = (r: RemoteFlrRule) => [main, dr].forEach((l) => zvmFaults(l.zvm).remoteFlr(r));
const since = () => main.callLog.calls.at(-1)?.seq ?? 0;
const calls = (from: number, site: string, method: string) => main.callLog.find(`zvm:${site}`, method).filter((c) => c.seq > from);
const restore = () => recoverFile(main.client, {
  pollMs: 40, vm: ERP01, checkpoint: { tag }, path: '/etc/erp/erp.conf', restoreDir: main.tmp,
  recoverySite: siteClientLookup([main.client, dr.client]),
});

describe('FLR of a VPG replicating to another site', () => {
  it('runs at the recovery site when the protected site says CanMount false (the 7.x rule)', async () => {
    const from = since();
    const res = await restore();
    expect(res).toMatchObject({ site: 'lab-zvm-dr', content: 'tenant = acme\n', unmount: { status: 'unmounted' } });
    expect(calls(from, 'lab-zvm', 'GET /v1/vms/:id/pointsInTime')).toHaveLength(1);
    expect(calls(from, 'lab-zvm', 'POST /v1/flrs')).toHaveLength(0);
    expect(calls(from, 'lab-zvm-dr', 'POST /v1/flrs')).toHaveLength(1);
    expect(dr.zvm.state.liveSessions()).toHaveLength(0);
  });

  it('without the pointsInTime route, the protected site\'s refused mount moves on to the recovery site', async () => {
    zvmFaults(main.zvm).failRoute('GET /v1/vms/:id/pointsInTime', 1, 404);
    const from = since();
    expect((await restore()).site).toBe('lab-zvm-dr');
    expect(calls(from, 'lab-zvm', 'POST /v1/flrs')).toHaveLength(1);
  });

  it('runs where the VM was found when that ZVM accepts (the 10.0 U6 Swagger reading), never asking the other', async () => {
    rule('protected-site');
    const from = since();
    expect(await restore()).toMatchObject({ site: 'lab-zvm', content: 'tenant = acme\n' });
    expect(main.callLog.calls.filter((c) => c.seq > from && c.source === 'zvm:lab-zvm-dr' && /flrs|pointsInTime/.test(c.method))).toHaveLength(0);
  });

  it('is refused, naming every site tried and its reason, when neither accepts', async () => {
    rule('none');
    const err = await thrown(restore);
    expect(err.code).toBe('flr_failed');
    expect(err.message).toMatch(/Tried 'lab-zvm' \(found at\): .*not available.*; 'lab-zvm-dr' \(recovery site\): .*not available/);
    expect(err.details.tried.map((t: { site: string }) => t.site)).toEqual(['lab-zvm', 'lab-zvm-dr']);
    expect(err.details.configure_site).toBeUndefined();
  });
});
