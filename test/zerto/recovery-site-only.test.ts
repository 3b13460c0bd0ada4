// A server configured with only the recovery site's ZVM (lab-zvm-dr, the recovery site of
// vpg-erp-dr): it finds the VM it recovers, restores a file from the tag the protected site
// pinned, and refuses to pin, naming the protected site to add to config.json.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { LabJournal } from '../../src/lab/zvm/index.js';
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
  tag = (await pinTaggedCheckpoint(main.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit', vm: 'erp-01', changeId: 'dr-only-1', pollMs: 40 })).tag;
  main.guests.write(ERP01, '/etc/erp/erp.conf', 'tenant = broken\n');
}, 60_000);
afterAll(async () => {
  await main?.close();
  await dr?.close();
});

describe('only the recovery site configured', () => {
  it('finds the VM it recovers when asked for FLR, and says it only recovers it', async () => {
    const found = await findProtection(dr.client, ERP01, { includeRecovered: true });
    expect(found.recovered_only).toBe(true);
    expect(found.vpgs.map((v) => v.name)).toEqual(['vpg-erp-dr']);
    expect(found.notes.join(' ')).toMatch(/only recovers this VM/);
  });

  it('restores a file from the protected site\'s tag, mounting at the recovery site', async () => {
    const res = await recoverFile(dr.client, { pollMs: 40, vm: ERP01, checkpoint: { tag }, path: '/etc/erp/erp.conf', restoreDir: dr.tmp });
    expect(res).toMatchObject({ site: 'lab-zvm-dr', vpg: { name: 'vpg-erp-dr' }, content: 'tenant = acme\n', unmount: { status: 'unmounted' } });
  });

  it('refuses a pin there, naming the protected site to add', async () => {
    const err = await thrown(() => findProtection(dr.client, ERP01));
    expect(err.code).toBe('not_protected');
    expect(err.message).toMatch(/protected at 'lab-zvm', and this site only recovers it/);
    expect(err.hint).toMatch(/add the Zerto site lab-zvm to config.json sites\[\]/);
  });
});
