import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { labLocator, labSite, startLab, thrown, type LabHandle } from './support/lab.js';

let lab: LabHandle;
let azure: LabHandle;
beforeAll(async () => {
  lab = await startLab();
  azure = await startLab({ site: 'lab-zca-azure', callLog: lab.callLog, guests: lab.guests });
});
afterAll(async () => {
  await lab.close();
  await azure.close();
});

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');

describe('findProtection', () => {
  it('finds app-01 by name through vSphere, with both protecting VPGs', async () => {
    const found = await findProtection(lab.client, 'app-01', { locator: labLocator() });
    expect(found.matched_by).toBe('instance_uuid_moref');
    expect(found.vm).toMatchObject({ name: 'app-01', vm_identifier: APP01, vsphere: { target: 'lab-vc1', moid: 'vm-101' } });
    expect(found.vpgs.map((v) => v.name)).toEqual(['vpg-app', 'vpg-app-critical']);
    for (const v of found.vpgs) {
      expect(v).toMatchObject({ locally_replicated: true, flr_possible: true, public_cloud_protected: false, protected_site: { name: 'lab-zvm' }, recovery_site: { name: 'lab-zvm' } });
    }
  });

  it('resolves a guest FQDN, a short hostname and an IP through vSphere', async () => {
    for (const q of ['app-01.lab.local', '192.0.2.11']) {
      const found = await findProtection(lab.client, q, { locator: labLocator() });
      expect(found.matched_by).toBe('hostname');
      expect(found.vm.vm_identifier).toBe(APP01);
    }
    const win = await findProtection(lab.client, 'win-app-01.lab.local', { locator: labLocator() });
    expect(win.vpgs.map((v) => v.name)).toEqual(['vpg-windows']);
  });

  it('accepts a VmIdentifier without vSphere', async () => {
    const found = await findProtection(lab.client, APP01);
    expect(found.matched_by).toBe('vm_identifier');
    expect(found.vpgs).toHaveLength(2);
  });

  it('works by VM name without vSphere and says what needs it', async () => {
    const found = await findProtection(lab.client, 'app-01');
    expect(found.matched_by).toBe('name');
    expect(found.vsphere_lookup).toBe('no_locator');
    expect(found.notes.join(' ')).toMatch(/hostnames and IPs need targets.yaml/);
    const err = await thrown(() => findProtection(lab.client, 'app-01.lab.local'));
    expect(err.code).toBe('not_found');
    expect(err.hint).toMatch(/vSphere/);
  });

  it('refuses to guess between two VMs with the same name, listing the candidates', async () => {
    const err = await thrown(() => findProtection(lab.client, 'dup-01', { locator: labLocator() }));
    expect(err.code).toBe('ambiguous_name');
    expect(err.details.candidates.map((c: { moid: string }) => c.moid).sort()).toEqual(['vm-105', 'vm-106']);
    expect(err.details.candidates[0].vm_identifier).toMatch(/\.vm-10[56]$/);
  });

  it('says a VM that exists in vSphere is not protected, and an unknown name is not found', async () => {
    const unprotected = await thrown(() => findProtection(lab.client, 'test-01', { locator: labLocator() }));
    expect(unprotected.code).toBe('not_protected');
    expect(unprotected.message).toContain('test-01');
    const missing = await thrown(() => findProtection(lab.client, 'no-such-vm', { locator: labLocator() }));
    expect(missing.code).toBe('not_found');
    const zertoOnly = await thrown(() => findProtection(lab.client, 'test-01'));
    expect(zertoOnly.code).toBe('not_protected');
    expect(zertoOnly.details.vsphere_checked).toBe(false);
  });

  it('marks a VPG that recovers at another site as FLR to be tried here, then at that site', async () => {
    const found = await findProtection(lab.client, 'erp-01', { locator: labLocator() });
    expect(found.vpgs).toHaveLength(1);
    expect(found.vpgs[0]).toMatchObject({ name: 'vpg-erp-dr', locally_replicated: false, flr_possible: true, recovery_site: { name: 'lab-zvm-dr', id: labSite('lab-zvm-dr').siteIdentifier } });
    expect(found.vpgs[0]!.flr_reason).toContain('lab-zvm-dr');
  });

  it('treats a VM listed by both sites as one VM: protected at the cloud site, only recovered here', async () => {
    const atCloud = await findProtection(azure.client, 'az-web-01');
    expect(atCloud.vm.vm_identifier).toBe('azure-vm-7f1e2d3c');
    expect(atCloud.vpgs).toHaveLength(1);
    expect(atCloud.vpgs[0]).toMatchObject({ name: 'vpg-azure-web', public_cloud_protected: true, locally_replicated: false });
    expect(atCloud.vpgs[0]!.public_cloud_reason).toMatch(/Azure/);
    const here = await thrown(() => findProtection(lab.client, 'az-web-01', { locator: labLocator() }));
    expect(here.code).toBe('not_protected');
    expect(here.details.protected_elsewhere).toEqual(['lab-zca-azure']);
  });

  it('falls back to the VM name when the inferred instanceUuid.moref mapping does not match', async () => {
    const found = await findProtection(lab.client, 'web-01', { locator: labLocator({ instanceUuidOverride: '00000000-0000-4000-8000-000000000000' }) });
    expect(found.matched_by).toBe('name');
    expect(found.vm.vm_identifier).toBe(labVmIdentifier('lab-vc1', 'vm-102'));
    expect(found.notes.join(' ')).toMatch(/matched by the VM name/);
  });
});
