// Decoding golden responses: captured from vcsim (`XMLSchema-instance:type` with its own namespace
// declaration, unquoted everything) and written the way vCenter writes them (`xsi:type`, a MoRef
// whose `type` attribute sits beside `xsi:type`). Both must decode to the same plain values.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isUnauthenticatedRetrieve } from '../../src/vsphere/session.js';
import { faultToAppError } from '../../src/vsphere/soap/faults.js';
import { decodeRetrieveResult, encodeElement, parseEnvelope } from '../../src/vsphere/soap/xml.js';
import { summarizeDevices } from '../../src/vsphere/vms.js';
import { snapshotTree } from '../../src/vsphere/snapshot-tree.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('parseEnvelope / decodeRetrieveResult', () => {
  it('decodes vcsim XMLSchema-instance:type values, MoRefs and ArrayOf wrappers', () => {
    const env = parseEnvelope(fixture('vcsim-retrieve-vm.xml'));
    expect(env.responseName).toBe('RetrievePropertiesExResponse');
    const { token, objects } = decodeRetrieveResult(env.returnval);
    expect(token).toBeUndefined();
    expect(objects).toHaveLength(1);
    const [vm] = objects;
    expect(vm!.obj).toEqual({ type: 'VirtualMachine', value: 'vm-57' });
    expect(vm!.props.name).toBe('DC0_H0_VM0');
    expect(vm!.props['runtime.powerState']).toBe('poweredOn');
    // The MoRef's own `type` is the managed object type, not the xsi type.
    expect(vm!.props['runtime.host']).toEqual({ type: 'HostSystem', value: 'host-21' });
    expect(vm!.props.datastore).toEqual([{ type: 'Datastore', value: '/tmp/ds@folder-5' }]);
    expect(vm!.props['config.hardware.numCPU']).toBe(1);
    expect(vm!.props['config.template']).toBe(false);
    expect(vm!.missing).toEqual([
      { path: 'guest.customizationInfo', faultName: 'InvalidProperty', fault: { _type: 'InvalidProperty', name: 'guest.customizationInfo' } },
    ]);
  });

  it('decodes vCenter xsi:type values, entities, a paging token and nested typed objects', () => {
    const { token, objects } = decodeRetrieveResult(parseEnvelope(fixture('vcenter-retrieve-vm.xml')).returnval);
    expect(token).toBe('session[52a1]52b7-tok-1');
    const p = objects[0]!.props;
    expect(p.name).toBe('web & db <01>');
    expect(p['config.hardware.numCPU']).toBe(4);
    expect(p['runtime.host']).toEqual({ type: 'HostSystem', value: 'host-20' });
    expect(p.datastore).toEqual([
      { type: 'Datastore', value: 'datastore-11' },
      { type: 'Datastore', value: 'datastore-12' },
    ]);
    const snap = p.snapshot as { _type: string; rootSnapshotList: unknown[] };
    expect(snap._type).toBe('VirtualMachineSnapshotInfo');
    // A one-item list is still a list.
    expect(Array.isArray(snap.rootSnapshotList)).toBe(true);
    expect(snapshotTree(snap.rootSnapshotList)).toEqual([
      { moid: 'snapshot-7', name: 'only', description: '', created_at: '2024-05-01T10:00:00.123Z', state: 'poweredOff', quiesced: false, id: 1, children: [] },
    ]);
    const dev = summarizeDevices(p['config.hardware.device']);
    expect(dev.disks).toEqual([
      expect.objectContaining({ key: 2000, label: 'Hard disk 1', capacity_gb: 16, file: '[ds1] web/web.vmdk', controller_key: 1000, unit_number: 0, thin: true }),
    ]);
  });

  it('decodes typed faults from the detail, by xsi:type', () => {
    const mnf = parseEnvelope(fixture('vcsim-fault-managed-object-not-found.xml')).fault!;
    expect(mnf.faultName).toBe('ManagedObjectNotFound');
    expect(mnf.faultstring).toContain('vm-9999');
    expect(mnf.detail?.obj).toEqual({ type: 'VirtualMachine', value: 'vm-9999' });
    const login = parseEnvelope(fixture('vcsim-fault-invalid-login.xml')).fault!;
    expect(login.faultName).toBe('InvalidLogin');
    const na = parseEnvelope(fixture('vcenter-fault-not-authenticated.xml')).fault!;
    expect(na.faultName).toBe('NotAuthenticated');
  });

  it('recognises vcsim’s unauthenticated retrieval (200, NotAuthenticated in every missingSet)', () => {
    expect(isUnauthenticatedRetrieve(parseEnvelope(fixture('vcsim-missingset-not-authenticated.xml')).returnval)).toBe(true);
    expect(isUnauthenticatedRetrieve(parseEnvelope(fixture('vcsim-retrieve-vm.xml')).returnval)).toBe(false);
  });

  it('reads a failed TaskInfo with its nested fault', () => {
    const { objects } = decodeRetrieveResult(parseEnvelope(fixture('vcsim-task-info-error.xml')).returnval);
    const info = objects[0]!.props.info as { state: string; error: { fault: { _type: string }; localizedMessage: string } };
    expect(info.state).toBe('error');
    expect(info.error.fault._type).toBe('InvalidPowerState');
  });

  it('reads the service content', () => {
    const sc = parseEnvelope(fixture('vcsim-service-content.xml')).returnval as Record<string, unknown>;
    expect(sc.rootFolder).toEqual({ type: 'Folder', value: 'group-d1' });
    expect((sc.about as Record<string, unknown>).apiVersion).toBe('6.5');
  });
});

describe('faultToAppError', () => {
  const ctx = { target: 'vc-prod', host: 'vc.example.com', credentialPrefix: 'VC_PROD' };
  const f = (file: string) => faultToAppError(parseEnvelope(fixture(file)).fault!, ctx);

  it('maps vim faults to codes, keeping the fault name', () => {
    expect(f('vcsim-fault-managed-object-not-found.xml')).toMatchObject({ code: 'not_found', details: { fault: 'ManagedObjectNotFound' } });
    expect(f('vcsim-fault-method-not-found.xml')).toMatchObject({ code: 'vim_fault', details: { fault: 'MethodNotFound' } });
    const login = f('vcsim-fault-invalid-login.xml');
    expect(login.code).toBe('auth_failed');
    expect(login.hint).toContain('VC_PROD_USER');
    expect(login.hint).toContain('VC_PROD_PASSWORD');
    expect(login.message).toContain("'vc-prod'");
  });
});

describe('encodeElement', () => {
  it('writes MoRefs, xsi:type, arrays in order, escapes text and omits undefined', () => {
    const xml = encodeElement('spec', {
      _type: 'VirtualMachineConfigSpec',
      numCPUs: 2,
      memoryMB: undefined,
      annotation: 'a<b & "c"',
      deviceChange: [{ operation: 'add' }, { operation: 'remove' }],
      host: { type: 'HostSystem', value: 'host-1' },
    });
    expect(xml).toBe(
      '<spec xsi:type="VirtualMachineConfigSpec"><numCPUs>2</numCPUs><annotation>a&lt;b &amp; &quot;c&quot;</annotation>' +
        '<deviceChange><operation>add</operation></deviceChange><deviceChange><operation>remove</operation></deviceChange>' +
        '<host type="HostSystem">host-1</host></spec>',
    );
  });
});
