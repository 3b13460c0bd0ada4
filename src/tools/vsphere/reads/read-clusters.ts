// list_clusters and get_cluster_details: compute clusters with their DRS/HA settings and capacity.
import { z } from 'zod';
import type { ClusterRow } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { ClusterArg, LimitArg, NameArg, OffsetArg, TargetsArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { nameMatcher, SafeNameRegexArg } from '../support/filters.js';
import { detailFanOut, nbool, nnum, nstr, page, PageMeta, fanOutRead, readResolution } from '../support/read-common.js';

const ClusterListRow = z.object({
  name: z.string(),
  moid: z.string(),
  datacenter: nstr,
  overall_status: nstr.describe('green, yellow, red or gray.'),
  host_count: z.number().int(),
  effective_hosts: nnum.describe('Hosts available to run VMs (connected, not in maintenance).'),
  vm_count: z.number().int(),
  drs_enabled: nbool,
  drs_behavior: nstr,
  ha_enabled: nbool,
  total_cpu_mhz: nnum,
  total_memory_mb: nnum,
  effective_cpu_mhz: nnum,
  effective_memory_mb: nnum,
});

function compactCluster(c: ClusterRow): z.infer<typeof ClusterListRow> {
  return {
    name: c.name, moid: c.moid, datacenter: c.datacenter?.name ?? null, overall_status: c.overall_status,
    host_count: c.host_count, effective_hosts: c.effective_hosts, vm_count: c.vm_count, drs_enabled: c.drs_enabled,
    drs_behavior: c.drs_behavior, ha_enabled: c.ha_enabled, total_cpu_mhz: c.total_cpu_mhz,
    total_memory_mb: c.total_memory_mb, effective_cpu_mhz: c.effective_cpu_mhz, effective_memory_mb: c.effective_memory_mb,
  };
}

export const listClusters = defineTool({
  name: 'list_clusters',
  title: 'List clusters',
  description:
    'Lists compute clusters per target: status, host and VM counts, DRS and HA settings, CPU/memory totals.',
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    name: NameArg.optional(),
    name_regex: SafeNameRegexArg.optional(),
    limit: LimitArg,
    offset: OffsetArg,
  }),
  output: fanOutSchema(z.object({ ...PageMeta, clusters: z.array(ClusterListRow) })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const named = nameMatcher(args);
    return fanOutRead(ctx, async (client, _target, call) => {
      const rows = (await client.listClusters(call)).filter((c) => named(c.name));
      const { rows: slice, ...meta } = page(rows, args.limit, args.offset, 'clusters', 'name_regex');
      return { ...meta, clusters: slice.map(compactCluster) };
    });
  },
});

export const getClusterDetails = defineTool({
  name: 'get_cluster_details',
  title: 'Get cluster details',
  description:
    'One cluster: the list_clusters columns plus its hosts with their VM counts.',
  category: 'read',
  toolset: 'vsphere_infra',
  idempotent: true,
  input: z.object({ target: TargetsArg, cluster: ClusterArg }),
  output: fanOutSchema(ClusterListRow.extend({
    hosts: z.array(z.object({ name: z.string(), moid: z.string(), vm_count: z.number().int() })),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'cluster', name: args.cluster });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'cluster', args.cluster, async (client, moid, call) => {
      const d = await client.getClusterDetails(moid, call);
      return { ...compactCluster(d), hosts: d.hosts.map((h) => ({ name: h.name, moid: h.moid, vm_count: h.vm_count })) };
    });
  },
});
