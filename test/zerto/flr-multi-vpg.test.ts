// A VM in several VPGs (win-file-01: vpg-files-archive and vpg-files-dr replicate to the DR
// site and sort first by name, vpg-windows replicates locally), every one carrying the guard's
// tag. A restore by tag tries the VPGs that hold it, locally replicated first, moves on when a
// VPG's sites refuse, and refuses only when all do, naming every VPG and site and what each said.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { LabJournal } from '../../src/lab/zvm/index.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { siteClientLookup } from '../../src/zerto/flr-site.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { labLocator, startLab, thrown, type LabHandle } from './support/lab.js';

const FILE01 = labVmIdentifier('lab-vc2', 'vm-202');
const PATH = 'C:\\share\\readme.txt';
let main: LabHandle;
let dr: LabHandle;
let tag: string;
let twoTag: string;
beforeAll(async () => {
  const journal = new LabJournal();
  main = await startLab({ journal });
  dr = await startLab({ site: 'lab-zvm-dr', journal, guests: main.guests, callLog: main.callLog });
  const found = await findProtection(main.client, 'win-file-01', { locator: labLocator() });
  tag = (await pinTaggedCheckpoint(main.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit', vm: 'win-file-01', changeId: 'multi-1', pollMs: 40 })).tag;
  const two = found.vpgs.filter((v) => v.name !== 'vpg-files-archive');
  twoTag = (await pinTaggedCheckpoint(main.client, { vpgs: two, agent: 'claude', action: 'edit', vm: 'win-file-01', changeId: 'multi-2', pollMs: 40 })).tag;
  main.guests.write(FILE01, PATH, 'broken\r\n');
}, 60_000);
afterAll(async () => {
  await main?.close();
  await dr?.close();
});
afterEach(() => [main, dr].forEach((l) => zvmFaults(l.zvm).reset()));

const since = () => main.callLog.calls.at(-1)?.seq ?? 0;
const mounts = (from: number, site: string) => main.callLog.find(`zvm:${site}`, 'POST /v1/flrs').filter((c) => c.seq > from);
const restore = (withDr: boolean, t = tag) => recoverFile(main.client, {
  pollMs: 40, vm: FILE01, checkpoint: { tag: t }, path: PATH, restoreDir: main.tmp,
  ...(withDr ? { recoverySite: siteClientLookup([main.client, dr.client]) } : {}),
});

describe('the lab topology: one VM in three VPGs', () => {
  it('lists the VM in three VPGs, the two replicating to the DR site first by name', async () => {
    const found = await findProtection(main.client, 'win-file-01', { locator: labLocator() });
    expect(found.vpgs.map((v) => [v.name, v.locally_replicated])).toEqual([['vpg-files-archive', false], ['vpg-files-dr', false], ['vpg-windows', true]]);
  });

  it('refuses, at the protected site, a mount of a VPG that must be restored from its recovery site', async () => {
    const cp = main.zvm.state.listedCheckpoints('aaaaaaaa-0000-4000-8000-000000000007').find((c) => c.tag === tag)!;
    const err = await thrown(() => main.client.mountFlr({ vpgId: 'aaaaaaaa-0000-4000-8000-000000000007', vmId: FILE01, checkpointId: cp.id }));
    expect(err.details.status).toBe(400);
    expect(err.message).toMatch(/must be run at its recovery site lab-zvm-dr/);
  });
});

describe('FLR by tag over every VPG holding it', () => {
  it('restores from the locally replicated VPG although the DR VPGs sort first, with only this site configured', async () => {
    const from = since();
    const res = await restore(false);
    expect(res).toMatchObject({ site: 'lab-zvm', vpg: { name: 'vpg-windows' }, content: 'file server\r\n', unmount: { status: 'unmounted' } });
    expect(mounts(from, 'lab-zvm')).toHaveLength(1);
  });

  it('moves on to a DR VPG at its recovery site when the local VPG refuses the mount', async () => {
    zvmFaults(main.zvm).failRoute('POST /v1/flrs', 1, 400, 'Another FLR session is running for this VM');
    const from = since();
    const res = await restore(true);
    expect(res).toMatchObject({ site: 'lab-zvm-dr', vpg: { name: 'vpg-files-archive' }, content: 'file server\r\n' });
    expect(mounts(from, 'lab-zvm')).toHaveLength(1);
    expect(mounts(from, 'lab-zvm-dr')).toHaveLength(1);
    expect(dr.zvm.state.liveSessions()).toHaveLength(0);
  });

  it('works the same for a VM in two VPGs', async () => {
    zvmFaults(main.zvm).failRoute('POST /v1/flrs', 1, 400, 'Another FLR session is running for this VM');
    expect(await restore(true, twoTag)).toMatchObject({ site: 'lab-zvm-dr', vpg: { name: 'vpg-files-dr' } });
  });

  it('refuses only when every VPG is refused, naming each VPG, each site tried and what it said', async () => {
    zvmFaults(main.zvm).failRoute('POST /v1/flrs', 1, 400, 'Another FLR session is running for this VM');
    const err = await thrown(() => restore(false));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toMatch(/any of the 3 VPGs/);
    expect(err.message).toMatch(/VPG 'vpg-windows': 'lab-zvm' \(found at\) said .*Another FLR session/);
    expect(err.message).toMatch(/VPG 'vpg-files-archive': 'lab-zvm' \(found at\) said .*must be run at its recovery site/);
    expect(err.details.vpgs.map((v: { vpg: string }) => v.vpg)).toEqual(['vpg-windows', 'vpg-files-archive', 'vpg-files-dr']);
    expect(err.hint).toMatch(/lab-zvm-dr/);
    expect(main.zvm.state.liveSessions()).toHaveLength(0);
  });
});
