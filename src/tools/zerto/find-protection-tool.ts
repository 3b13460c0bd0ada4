// zerto_find_protection: one VM (by name, guest hostname, IP or VmIdentifier) to exactly one VM and
// every VPG protecting it, across the configured Zerto sites. Never picks one of several VMs.
import { z } from 'zod';
import { defineTool } from '../define.js';
import { findProtectionAnywhere, type FoundAnywhere } from '../../zerto/protection.js';
import { quoted } from '../../mcp/output/quote.js';
import {
  policyTarget, SiteArg, vmAffected, vpgAffected, vsphereHomeOf, VpgOut, zertoOf, ZertoVmArg,
  type ZertoResolution, type VsphereHome,
} from './zerto-common.js';

interface Lookup {
  found: FoundAnywhere;
  home: VsphereHome | undefined;
}

export const zertoFindProtection = defineTool({
  name: 'zerto_find_protection',
  title: 'Find the Zerto protection of a VM',
  description:
    'Resolves a VM (vSphere name, FQDN, short hostname, IP or Zerto VmIdentifier) to one VM and every VPG protecting it: status, sites, local replication, whether FLR and tagged checkpoints are possible.',
  category: 'read',
  toolset: 'zerto',
  idempotent: true,
  input: z.object({
    vm: ZertoVmArg,
    site: SiteArg.optional().describe('Only this Zerto site.'),
  }),
  output: z.object({
    site: z.string().describe('The Zerto site where the VM is protected.'),
    vm: z.object({
      name: z.string(),
      vm_identifier: z.string(),
      target: z.string().optional().describe('vSphere target (targets.yaml name) the VM lives on, when known.'),
      moid: z.string().optional(),
      hostname: z.string().optional(),
      ip: z.string().optional(),
    }),
    matched_by: z.enum(['vm_identifier', 'instance_uuid_moref', 'name', 'hostname']).describe('How the query reached Zerto\'s VM rows.'),
    vpgs: z.array(VpgOut),
    notes: z.array(z.string()),
    other_sites: z.array(z.object({ site: z.string(), code: z.string(), message: z.string() }))
      .describe('What the other configured sites answered (e.g. they only recover this VM).'),
  }),
  async resolve(args, ctx) {
    const found = await findProtectionAnywhere(zertoOf(ctx), { query: args.vm, ...(args.site ? { site: args.site } : {}), signal: ctx.signal });
    const home = await vsphereHomeOf(ctx, found);
    const resolution: ZertoResolution<Lookup> = {
      targets: [policyTarget(ctx, found, home)],
      affected: [vmAffected(found, home), ...found.vpgs.map(vpgAffected)],
      summary: `find the VPGs protecting ${quoted(found.vm.name)}`,
      zerto: { found, home },
    };
    return resolution;
  },
  async execute(_args, resolution) {
    const { found, home } = resolution.zerto;
    const v = found.vm.vsphere;
    return {
      site: found.site.name,
      vm: {
        name: found.vm.name,
        vm_identifier: found.vm.vm_identifier,
        ...(home ? { target: home.target, moid: home.moid } : {}),
        ...(v?.hostname ? { hostname: v.hostname } : {}),
        ...(v?.ip ? { ip: v.ip } : {}),
      },
      matched_by: found.matched_by,
      vpgs: found.vpgs,
      notes: found.notes,
      other_sites: found.other_sites,
    };
  },
});
