// list_datastores and get_datastore_details: capacity, free space and accessibility, and for one
// datastore the VMs on it (capped: a shared datastore can hold thousands) and the hosts mounting it.
import { z } from 'zod';
import type { DatastoreRow } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { DatastoreArg, LimitArg, NameArg, OffsetArg, TargetsArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { nameMatcher, SafeNameRegexArg } from '../support/filters.js';
import { capped, detailFanOut, NamedRef, nbool, nnum, nstr, page, PageMeta, fanOutRead, readResolution } from '../support/read-common.js';

const MAX_DETAIL_VMS = 100;

const DatastoreListRow = z.object({
  name: z.string(),
  moid: z.string(),
  type: nstr.describe('VMFS, NFS, vsan, ...'),
  datacenter: nstr,
  capacity_gb: nnum,
  free_gb: nnum,
  used_pct: nnum,
  uncommitted_gb: nnum.describe('Space promised to thin disks beyond what they use now.'),
  accessible: nbool,
  maintenance_mode: nstr,
  vm_count: z.number().int(),
  host_count: z.number().int(),
});

const gb = (b: number | null) => (b === null ? null : Math.round((b / 2 ** 30) * 100) / 100);

function compactDatastore(d: DatastoreRow): z.infer<typeof DatastoreListRow> {
  return {
    name: d.name, moid: d.moid, type: d.type, datacenter: d.datacenter?.name ?? null, capacity_gb: d.capacity_gb,
    free_gb: d.free_gb, used_pct: d.used_pct, uncommitted_gb: gb(d.uncommitted_bytes), accessible: d.accessible,
    maintenance_mode: d.maintenance_mode, vm_count: d.vm_count, host_count: d.host_count,
  };
}

export const listDatastores = defineTool({
  name: 'list_datastores',
  title: 'List datastores',
  description:
    'Lists datastores per target: type, capacity, free space, used percent, overcommit, accessibility, maintenance mode, VM and host counts.',
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    name: NameArg.optional(),
    name_regex: SafeNameRegexArg.optional(),
    accessible: z.boolean().optional().describe('Only datastores that are (true) or are not (false) accessible.'),
    limit: LimitArg,
    offset: OffsetArg,
  }),
  output: fanOutSchema(z.object({ ...PageMeta, datastores: z.array(DatastoreListRow) })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const named = nameMatcher(args);
    return fanOutRead(ctx, async (client, _target, call) => {
      const rows = (await client.listDatastores(call)).filter(
        (d) => named(d.name) && (args.accessible === undefined || d.accessible === args.accessible),
      );
      const { rows: slice, ...meta } = page(rows, args.limit, args.offset, 'datastores', 'name_regex or accessible');
      return { ...meta, datastores: slice.map(compactDatastore) };
    });
  },
});

export const getDatastoreDetails = defineTool({
  name: 'get_datastore_details',
  title: 'Get datastore details',
  description:
    `One datastore: the list_datastores columns plus URL, the hosts mounting it and its VMs (first ${MAX_DETAIL_VMS}).`,
  category: 'read',
  toolset: 'vsphere_infra',
  idempotent: true,
  input: z.object({ target: TargetsArg, datastore: DatastoreArg }),
  output: fanOutSchema(DatastoreListRow.extend({
    url: nstr,
    hosts: z.array(z.object({ name: z.string(), moid: z.string(), mounted: nbool, accessible: nbool })),
    vms: z.array(NamedRef).describe(`Up to ${MAX_DETAIL_VMS} VMs; vm_count has the total.`),
    vms_truncated: z.boolean(),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'datastore', name: args.datastore });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'datastore', args.datastore, async (client, moid, call) => {
      const d = await client.getDatastoreDetails(moid, call);
      const vms = capped(d.vms, MAX_DETAIL_VMS);
      return { ...compactDatastore(d), url: d.url, hosts: d.hosts, vms: vms.items, vms_truncated: vms.truncated };
    });
  },
});
