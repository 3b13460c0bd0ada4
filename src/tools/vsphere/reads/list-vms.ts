// list_vms: every VM of each target in one PropertyCollector pass (a constant number of round
// trips whatever the inventory size), filtered and counted over the full set, then paged per
// target. Rows are compact on purpose: a model reads them, so names stand in for moref objects and
// only the columns an administrator filters or decides on are kept; get_vm_details has the rest.
import { z } from 'zod';
import type { VmRow } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import {
  ConnectionStateArg, FolderArg, HostArg, LimitArg, NameArg, OffsetArg, PowerStateArg, ResourcePoolArg, TargetsArg,
} from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { inSubtree, IsoTimeArg, nameMatcher, SafeNameRegexArg, timeMatcher } from '../support/filters.js';
import { nnum, nstr, page, PageMeta, fanOutRead, readResolution } from '../support/read-common.js';

export const VmListRow = z.object({
  name: z.string(),
  moid: z.string(),
  power_state: nstr,
  connection_state: nstr.describe('connected, or disconnected/orphaned/inaccessible/invalid (ghost records: see unregister_vm).'),
  created_at: nstr.describe('config.createDate, ISO-8601.'),
  guest_os: nstr,
  num_cpu: nnum,
  memory_mb: nnum,
  ip_address: nstr,
  guest_hostname: nstr,
  host: nstr.describe('ESXi host name.'),
  cluster: nstr,
  folder: nstr.describe('Inventory path of the VM folder, e.g. /LabDC1/vm/apps.'),
  resource_pool: nstr.describe('Inventory path of the resource pool.'),
  template: z.boolean(),
});

export function compactVm(v: VmRow): z.infer<typeof VmListRow> {
  return {
    name: v.name,
    moid: v.moid,
    power_state: v.power_state,
    connection_state: v.connection_state,
    created_at: v.created_at,
    guest_os: v.guest_os,
    num_cpu: v.num_cpu,
    memory_mb: v.memory_mb,
    ip_address: v.ip_address,
    guest_hostname: v.guest_hostname,
    host: v.host?.name ?? null,
    cluster: v.cluster?.name ?? null,
    folder: v.folder,
    resource_pool: v.resource_pool?.path || v.resource_pool?.name || null,
    template: v.template,
  };
}

const Input = z.object({
  target: TargetsArg,
  name: NameArg.optional(),
  name_regex: SafeNameRegexArg.optional(),
  folder: FolderArg.optional(),
  resource_pool: ResourcePoolArg.optional(),
  host: HostArg.optional().describe('Only VMs running on this ESXi host (exact name or moid).'),
  power_state: PowerStateArg.optional(),
  connection_state: ConnectionStateArg.optional(),
  created_after: IsoTimeArg.optional().describe('Only VMs created at or after this ISO-8601 time.'),
  created_before: IsoTimeArg.optional().describe('Only VMs created at or before this ISO-8601 time.'),
  limit: LimitArg,
  offset: OffsetArg,
});

export type VmFilters = z.infer<typeof Input>;

/** The filters of list_vms as one predicate (exported for the benchmark of the listing cost). */
export function vmFilter(f: VmFilters): (v: VmRow) => boolean {
  const named = nameMatcher(f);
  const created = timeMatcher({ after: f.created_after, before: f.created_before });
  return (v) =>
    named(v.name) &&
    (f.power_state === undefined || v.power_state === f.power_state) &&
    (f.connection_state === undefined || v.connection_state === f.connection_state) &&
    (f.folder === undefined || inSubtree(v.folder, f.folder)) &&
    (f.resource_pool === undefined || v.resource_pool?.moid === f.resource_pool || inSubtree(v.resource_pool?.path, f.resource_pool)) &&
    (f.host === undefined || v.host?.name === f.host || v.host?.moid === f.host) &&
    created(v.created_at);
}

const NARROW = 'name_regex, folder, resource_pool, host, power_state or connection_state';

export const listVms = defineTool({
  name: 'list_vms',
  title: 'List virtual machines',
  description:
    "Lists VMs and templates per target, sorted by name: power and connection state, created, guest OS, CPU/memory, IP, host, cluster, folder, resource pool. Filters combine (AND). get_vm_details adds one VM's disks, NICs and snapshots.",
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: Input,
  output: fanOutSchema(z.object({ ...PageMeta, vms: z.array(VmListRow) })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const keep = vmFilter(args);
    return fanOutRead(ctx, async (client, _target, call) => {
      const matching = (await client.listVms(call)).filter(keep);
      const { rows, ...meta } = page(matching, args.limit, args.offset, 'VMs', NARROW);
      return { ...meta, vms: rows.map(compactVm) };
    });
  },
});
