// One look at a VM for undo: the state a change (or an undo) is about to replace, and running
// one inverse item against vSphere. Each inverse is idempotent: a VM already in the recorded state
// is left alone, so a retry or a second undo never does a thing twice.
import { AppError } from '../../../core/errors.js';
import type { UndoItem, UndoVm, VmBefore } from '../../../core/undo-item.js';
import type { CallOptions, VsphereClient } from '../../../vsphere/client.js';
import type { CallContext } from '../../define.js';
import { onTarget, phaseWait } from './task-runner.js';

/** The VM's state in one property read: power, CPU, memory, disks, placement, first CD-ROM. */
export async function readVmBefore(ctx: CallContext, vm: UndoVm): Promise<VmBefore> {
  const d = await onTarget(ctx, vm.target, (client, call) => client.getVmDetails(vm.moid, call));
  const cd = d.cdroms[0];
  return {
    vm: { target: vm.target, name: d.name, moid: d.moid },
    power_state: d.power_state, num_cpu: d.num_cpu, memory_mb: d.memory_mb,
    disk_keys: d.disks.map((x) => x.key),
    host: d.host ? { name: d.host.name, moid: d.host.moid } : null,
    pool: d.resource_pool ? { name: d.resource_pool.name, moid: d.resource_pool.moid } : null,
    datastores: d.datastores.map((x) => ({ name: x.name, moid: x.moid })),
    cdrom: cd ? { key: cd.key, iso: cd.iso } : null,
  };
}

/** Runs one possible item; resolves to the task that did it (none when nothing needed doing). */
export async function applyInverse(ctx: CallContext, item: UndoItem): Promise<{ task?: string; unchanged?: true }> {
  const inv = item.inverse;
  return onTarget(ctx, item.vm.target, async (client, call) => {
    const wait = phaseWait(ctx, call, 0, 1, item.says.slice(0, 80));
    switch (inv.kind) {
      case 'power':
        return setPower(client, item.vm.moid, inv.state, call, wait);
      case 'reconfigure': {
        const now = await client.getVmDetails(item.vm.moid, call);
        const requests = [
          ...(inv.num_cpu !== undefined && inv.num_cpu !== now.num_cpu ? [{ kind: 'cpu' as const, numCpus: inv.num_cpu }] : []),
          ...(inv.memory_mb !== undefined && inv.memory_mb !== now.memory_mb ? [{ kind: 'memory' as const, memoryMb: inv.memory_mb }] : []),
          ...(inv.remove_disks ?? []).filter((d) => now.disks.some((x) => x.key === d.key))
            .map((d) => ({ kind: 'remove_disk' as const, deviceKey: d.key, destroyFile: true, ...(d.file !== null ? { expectFile: d.file } : {}) })),
        ];
        if (!requests.length) return { unchanged: true };
        return { task: (await client.reconfigure(item.vm.moid, requests, wait)).task };
      }
      case 'remove_snapshot':
        return { task: (await client.removeSnapshot(inv.snapshot.moid, { removeChildren: false }, wait)).task };
      case 'delete_vm': {
        if ((await client.powerState(item.vm.moid, call)) === 'poweredOn') await client.powerOff(item.vm.moid, phaseWait(ctx, call, 0, 2, 'power off'));
        return { task: (await client.destroy(item.vm.moid, wait)).task };
      }
      case 'relocate': {
        const now = await client.getVmDetails(item.vm.moid, call);
        const host = inv.host && inv.host.moid !== now.host?.moid ? inv.host.moid : undefined;
        const pool = host && inv.pool ? inv.pool.moid : undefined;
        const datastore = inv.datastore && !(now.datastores.length === 1 && now.datastores[0]!.moid === inv.datastore.moid) ? inv.datastore.moid : undefined;
        if (!host && !datastore) return { unchanged: true };
        return { task: (await client.relocate(item.vm.moid, { ...(host ? { host } : {}), ...(pool ? { pool } : {}), ...(datastore ? { datastore } : {}) }, wait)).task };
      }
      case 'iso': {
        const now = (await client.getVmDetails(item.vm.moid, call)).cdroms.find((c) => c.key === inv.cdrom_key);
        if (now && now.iso === inv.iso) return { unchanged: true };
        const request = inv.iso ? { kind: 'mount_iso' as const, isoPath: inv.iso, cdromKey: inv.cdrom_key } : { kind: 'unmount_iso' as const, cdromKey: inv.cdrom_key };
        return { task: (await client.reconfigure(item.vm.moid, [request], wait)).task };
      }
      case 'revert_snapshot':
        return { task: (await client.revertToSnapshot(inv.snapshot.moid, { suppressPowerOn: true }, wait)).task };
      case 'guest_file':
      case 'journal_recovery':
      case 'none':
        throw new AppError('internal', `item ${item.id} has no vSphere inverse to run`);
    }
  });
}

async function setPower(client: VsphereClient, moid: string, want: 'poweredOn' | 'poweredOff' | 'suspended', call: CallOptions, wait: CallOptions): Promise<{ task?: string; unchanged?: true }> {
  const now = await client.powerState(moid, call);
  if (now === want) return { unchanged: true };
  if (want === 'poweredOn') return { task: (await client.powerOn(moid, wait)).task };
  if (want === 'poweredOff') return { task: (await client.powerOff(moid, wait)).task };
  if (now !== 'poweredOn') await client.powerOn(moid, wait);
  return { task: (await client.suspend(moid, wait)).task };
}
