// get_vm_details: one VM with its devices, guest networking and snapshot tree. Device controllers
// and raw keys stay out: they matter to reconfigure_vm internally, not to the model reading this.
import { z } from 'zod';
import type { VmDetails } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { TargetsArg, VmArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { compactVm, VmListRow } from './list-vms.js';
import { detailFanOut, nbool, nnum, nstr, readResolution } from '../support/read-common.js';
import { SnapshotTreeNodeSchema, snapshotNodes } from './read-snapshots.js';

const round2 = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);

const VmDetailsSchema = VmListRow.extend({
  datacenter: nstr,
  datastores: z.array(z.string()),
  guest_id: nstr,
  uuid: nstr.describe('BIOS UUID.'),
  instance_uuid: nstr.describe('vCenter instance UUID.'),
  annotation: nstr,
  tools_status: nstr,
  tools_running_status: nstr,
  boot_time: nstr,
  max_cpu_usage_mhz: nnum,
  guest_ips: z.array(z.string()).describe('Every IP VMware Tools reports (last known values when Tools is not running).'),
  disks: z.array(z.object({
    label: z.string(), capacity_gb: nnum, file: nstr, datastore: nstr, thin: nbool,
    controller_key: nnum, unit_number: nnum,
  })),
  nics: z.array(z.object({ label: z.string(), type: z.string(), mac_address: nstr, network: nstr, connected: nbool })),
  cdroms: z.array(z.object({ label: z.string(), iso: nstr.describe('Mounted ISO path, if any.'), connected: nbool })),
  current_snapshot: nstr,
  snapshots: z.array(SnapshotTreeNodeSchema),
});

export function vmDetailsOut(d: VmDetails): z.infer<typeof VmDetailsSchema> {
  return {
    ...compactVm(d),
    datacenter: d.datacenter?.name ?? null,
    datastores: d.datastores.map((x) => x.name),
    guest_id: d.guest_id,
    uuid: d.uuid,
    instance_uuid: d.instance_uuid,
    annotation: d.annotation,
    tools_status: d.tools_status,
    tools_running_status: d.tools_running_status,
    boot_time: d.boot_time,
    max_cpu_usage_mhz: d.max_cpu_usage_mhz,
    guest_ips: d.guest_ips,
    disks: d.disks.map((k) => ({
      label: k.label, capacity_gb: round2(k.capacity_gb), file: k.file, datastore: k.datastore?.name ?? null, thin: k.thin,
      controller_key: k.controller_key, unit_number: k.unit_number,
    })),
    nics: d.nics.map((n) => ({ label: n.label, type: n.type, mac_address: n.mac_address, network: n.network, connected: n.connected })),
    cdroms: d.cdroms.map((c) => ({ label: c.label, iso: c.iso, connected: c.connected })),
    current_snapshot: d.current_snapshot,
    snapshots: snapshotNodes(d.snapshots, d.current_snapshot),
  };
}

export const getVmDetails = defineTool({
  name: 'get_vm_details',
  title: 'Get VM details',
  description:
    'Everything about one VM: the list_vms columns plus datastores, UUIDs, annotation, Tools status, boot time, guest IPs, disks, NICs, CD-ROMs and the snapshot tree. Pass one target to avoid not_found slots.',
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({ target: TargetsArg, vm: VmArg }),
  output: fanOutSchema(VmDetailsSchema),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'vm', name: args.vm });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'vm', args.vm, async (client, moid, call) => vmDetailsOut(await client.getVmDetails(moid, call)));
  },
});
