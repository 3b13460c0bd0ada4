// list_hosts and get_host_details: the ESXi hosts of each target, one PropertyCollector pass per
// target. Host details name the host's VMs; a host can run thousands, so that list is capped and
// says so (list_vms with `host` pages through them).
import { z } from 'zod';
import type { HostRow } from '../../../vsphere/client.js';
import { defineTool } from '../../define.js';
import { ConnectionStateArg, HostArg, LimitArg, NameArg, OffsetArg, TargetsArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { nameMatcher, SafeNameRegexArg } from '../support/filters.js';
import { capped, detailFanOut, NamedRef, nbool, nnum, nstr, page, PageMeta, fanOutRead, readResolution } from '../support/read-common.js';

const MAX_DETAIL_VMS = 100;

const HostListRow = z.object({
  name: z.string(),
  moid: z.string(),
  connection_state: nstr.describe('connected, disconnected or notResponding.'),
  power_state: nstr,
  maintenance_mode: nbool,
  cluster: nstr.describe('Cluster name; null for a standalone host.'),
  version: nstr.describe('ESXi version.'),
  cpu_model: nstr,
  cpu_cores: nnum,
  cpu_mhz_total: nnum,
  cpu_usage_mhz: nnum,
  memory_mb_total: nnum,
  memory_usage_mb: nnum,
  vm_count: z.number().int(),
});

function compactHost(h: HostRow): z.infer<typeof HostListRow> {
  return {
    name: h.name, moid: h.moid, connection_state: h.connection_state, power_state: h.power_state,
    maintenance_mode: h.maintenance_mode, cluster: h.cluster?.name ?? null, version: h.version, cpu_model: h.cpu_model,
    cpu_cores: h.cpu_cores, cpu_mhz_total: h.cpu_mhz_total, cpu_usage_mhz: h.cpu_usage_mhz,
    memory_mb_total: h.memory_mb_total, memory_usage_mb: h.memory_usage_mb, vm_count: h.vm_count,
  };
}

export const listHosts = defineTool({
  name: 'list_hosts',
  title: 'List ESXi hosts',
  description:
    'Lists ESXi hosts per target, sorted by name: connection and power state, maintenance mode, cluster, version, CPU/memory capacity and usage, VM count.',
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({
    target: TargetsArg,
    name: NameArg.optional(),
    name_regex: SafeNameRegexArg.optional(),
    connection_state: ConnectionStateArg.optional(),
    limit: LimitArg,
    offset: OffsetArg,
  }),
  output: fanOutSchema(z.object({ ...PageMeta, hosts: z.array(HostListRow) })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target);
  },
  async execute(args, _resolution, ctx) {
    const named = nameMatcher(args);
    return fanOutRead(ctx, async (client, _target, call) => {
      const rows = (await client.listHosts(call)).filter(
        (h) => named(h.name) && (args.connection_state === undefined || h.connection_state === args.connection_state),
      );
      const { rows: slice, ...meta } = page(rows, args.limit, args.offset, 'hosts', 'name_regex or connection_state');
      return { ...meta, hosts: slice.map(compactHost) };
    });
  },
});

const HostDetails = HostListRow.extend({
  product: nstr,
  cpu_threads: nnum,
  datacenter: nstr,
  vendor: nstr,
  model: nstr,
  boot_time: nstr,
  uptime_seconds: nnum,
  datastores: z.array(NamedRef),
  networks: z.array(z.string()),
  vms: z.array(NamedRef).describe(`Up to ${MAX_DETAIL_VMS} VMs on this host; vm_count has the total.`),
  vms_truncated: z.boolean(),
});

export const getHostDetails = defineTool({
  name: 'get_host_details',
  title: 'Get ESXi host details',
  description:
    `One ESXi host: the list_hosts columns plus vendor, model, uptime, datastores, networks and its VMs (first ${MAX_DETAIL_VMS}; list_vms host=<name> pages through all).`,
  category: 'read',
  toolset: 'vsphere_infra',
  idempotent: true,
  input: z.object({ target: TargetsArg, host: HostArg }),
  output: fanOutSchema(HostDetails),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'host', name: args.host });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'host', args.host, async (client, moid, call) => {
      const d = await client.getHostDetails(moid, call);
      const vms = capped(d.vms, MAX_DETAIL_VMS);
      return {
        ...compactHost(d), product: d.product, cpu_threads: d.cpu_threads, datacenter: d.datacenter?.name ?? null,
        vendor: d.vendor, model: d.model, boot_time: d.boot_time, uptime_seconds: d.uptime_seconds,
        datastores: d.datastores, networks: d.networks, vms: vms.items, vms_truncated: vms.truncated,
      };
    });
  },
});
