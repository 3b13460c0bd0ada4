// SearchIndex: FindByIp, FindByDnsName, FindByUuid, FindAllByIp/FindAllByDnsName and
// FindByInventoryPath. Guest IPs and DNS names are only known while VMware Tools runs, as on
// vCenter, so a powered-off VM is not found by its address.

import type { Call } from './context.js';
import { boolOf, textOf } from './soap-parse.js';
import { ref, type MoRef } from './vim-values.js';
import { toolsRunning, type VmState } from './vm-state.js';

function vmsWhere(c: Call, pred: (vm: VmState) => boolean, all: boolean): MoRef[] {
  const out: MoRef[] = [];
  // Named and changed VMs first: the common lookups hit them without regenerating fillers.
  for (const moid of c.lab.model.vmMoids()) {
    const vm = c.lab.model.vmState(moid);
    if (vm && pred(vm)) {
      out.push(ref('VirtualMachine', moid));
      if (!all) break;
    }
  }
  return out;
}

function byIp(c: Call, all: boolean): MoRef[] {
  const ip = textOf(c.node, 'ip') ?? '';
  if (boolOf(c.node, 'vmSearch') === false) return [];
  return vmsWhere(c, (vm) => toolsRunning(vm) && vm.ipAddress === ip, all);
}

function byDns(c: Call, all: boolean): MoRef[] {
  const name = (textOf(c.node, 'dnsName') ?? '').toLowerCase();
  if (boolOf(c.node, 'vmSearch') === false) return [];
  return vmsWhere(c, (vm) => toolsRunning(vm) && vm.hostName.toLowerCase() === name, all);
}

export const searchMethods = {
  FindByIp: (c: Call) => byIp(c, false)[0],
  FindAllByIp: (c: Call) => byIp(c, true),
  FindByDnsName: (c: Call) => byDns(c, false)[0],
  FindAllByDnsName: (c: Call) => byDns(c, true),
  FindByUuid: (c: Call) => {
    const uuid = (textOf(c.node, 'uuid') ?? '').toLowerCase();
    const instance = boolOf(c.node, 'instanceUuid') ?? false;
    return vmsWhere(c, (vm) => (instance ? vm.instanceUuid : vm.uuid) === uuid, false)[0];
  },
  FindByInventoryPath: (c: Call) => {
    const parts = (textOf(c.node, 'inventoryPath') ?? '').split('/').filter(Boolean);
    let current: MoRef | undefined = ref('Folder', c.lab.inv.rootFolder);
    for (const part of parts) {
      const obj = current ? c.lab.model.lookup(current.value) : undefined;
      if (!obj) return undefined;
      const kids: MoRef[] = obj.type === 'Datacenter'
        ? ['vmFolder', 'hostFolder', 'datastoreFolder', 'networkFolder'].map((p) => obj.get(p) as MoRef)
        : ((obj.get('childEntity') ?? obj.get('host') ?? []) as MoRef[]);
      current = kids.find((k) => String(c.lab.model.lookup(k.value)?.get('name')) === part);
    }
    return current;
  },
};
