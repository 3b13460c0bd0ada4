// The lab-only tool that writes a file into a simulated guest. It stands in for ssh / winrm in the
// demo: a change to a guest that vSphere cannot see, which only the Zerto journal can undo. It is
// catalogued (built in, in lab mode), and as one of this server's own tools it is guarded in the
// call path: the VPGs protecting the VM get a tagged checkpoint before the write lands.
import { z } from 'zod';
import { AppError } from '../core/errors.js';
import type { CatalogEntry } from '../core/catalog.js';
import { defineTool, type AnyTool } from '../tools/define.js';
import { ChangeIdArg, OverrideArg } from '../tools/args.js';
import type { GuestFileSystems } from './guest-files.js';
import { LAB_VCENTERS } from './topology.js';
import { ownText } from '../core/own-text.js';

export const LAB_WRITE_TOOL = 'lab_write_guest_file';

export const LAB_CATALOG: CatalogEntry[] = [
  { tool: LAB_WRITE_TOOL, vm_arg: 'vm', platform: 'any', note: 'lab only: writes a file into a simulated guest (stands in for ssh/winrm)' },
];

function findLabVm(vm: string, path?: string): { target: string; moid: string; name: string; hostname: string } {
  const hits = LAB_VCENTERS.flatMap((vc) => vc.vms.filter((v) => v.name === vm || v.moid === vm || v.hostname === vm || v.hostname.split('.')[0] === vm)
    .map((v) => ({ target: vc.target, moid: v.moid, name: v.name, hostname: v.hostname, os: v.os })));
  if (hits.length === 0) throw new AppError('not_found', `No lab guest named '${vm}'.`, { hint: ownText('Lab guests: app-01, web-01, win-app-01, erp-01, win-file-01, ...') });
  if (hits.length > 1) throw new AppError('ambiguous_name', `'${vm}' names ${hits.length} lab VMs.`, { details: { candidates: hits } });
  const hit = hits[0]!;
  // Checked here, at resolve: a bad path found at execution would come after the checkpoint.
  if (path !== undefined && !(hit.os === 'windows' ? /^[a-zA-Z]:[\\/][^\\/]/.test(path) : path.startsWith('/') && path.length > 1)) {
    throw new AppError('invalid_input', `'${path}' is not an absolute ${hit.os} path in '${hit.name}'.`, { hint: ownText(hit.os === 'windows' ? 'Use a path like C:\\app\\app.ini.' : 'Use a path like /etc/app.conf.') });
  }
  return hit;
}

export function labTools(guests: GuestFileSystems): AnyTool[] {
  const write = defineTool({
    name: LAB_WRITE_TOOL,
    title: 'Write a file into a lab guest',
    description:
      'LAB ONLY. Writes a text file into a simulated guest (stands in for ssh/winrm); guarded like any change.',
    category: 'mutate',
    toolset: 'lab',
    idempotent: true,
    input: z.object({
      vm: z.string().min(1).describe('Lab VM name, guest hostname or moid (e.g. app-01).'),
      path: z.string().min(1).max(500).describe('Absolute guest path.'),
      content: z.string().max(64 * 1024).describe('New file content (UTF-8).'),
      change_id: ChangeIdArg.optional(),
      override: OverrideArg,
    }),
    output: z.object({ vm: z.string(), path: z.string(), bytes: z.number(), written_at: z.string(), would: z.string().optional().describe('Dry run only: what would have been written.') }),
    async resolve(args, ctx) {
      const vm = findLabVm(args.vm, args.path);
      const t = ctx.services.targets.find((x) => x.name === vm.target);
      if (!t) throw new AppError('not_found', `Lab target '${vm.target}' is not configured.`);
      return {
        targets: [{ name: t.name, host: t.host, tags: t.tags }],
        affected: [{ type: 'vm', name: vm.name, moid: vm.moid, target: vm.target, guest_path: args.path }],
        summary: `write ${Buffer.byteLength(args.content)} bytes to ${args.path} in lab guest '${vm.name}' (${vm.moid}) on '${vm.target}'`,
        guest: vm,
      };
    },
    async execute(args, { guest }) {
      const version = guests.write({ target: guest.target, moid: guest.moid }, args.path, args.content);
      return { vm: guest.name, path: args.path, bytes: Buffer.byteLength(args.content), written_at: new Date(version.at).toISOString() };
    },
    async dryRun(args, { guest }) {
      return { would: `write ${Buffer.byteLength(args.content)} bytes to ${args.path} in '${guest.name}'` };
    },
  });
  const read = defineTool({
    name: 'lab_read_guest_file',
    title: 'Read a file from a lab guest',
    description: 'LAB ONLY. Reads a text file from a simulated guest as it is now, to see a change and its recovery.',
    category: 'read',
    toolset: 'lab',
    idempotent: true,
    input: z.object({
      vm: z.string().min(1).describe('Lab VM name, guest hostname or moid (e.g. app-01).'),
      path: z.string().min(1).max(500).describe('Absolute guest path.'),
    }),
    output: z.object({ vm: z.string(), path: z.string(), exists: z.boolean(), content: z.string().optional() }),
    async resolve(args, ctx) {
      const vm = findLabVm(args.vm, args.path);
      const t = ctx.services.targets.find((x) => x.name === vm.target);
      if (!t) throw new AppError('not_found', `Lab target '${vm.target}' is not configured.`);
      return { targets: [{ name: t.name, host: t.host, tags: t.tags }], affected: [{ type: 'vm', name: vm.name, moid: vm.moid, target: vm.target }], guest: vm };
    },
    async execute(args, { guest }) {
      const file = guests.read({ target: guest.target, moid: guest.moid }, args.path);
      return file ? { vm: guest.name, path: args.path, exists: true, content: file.toString('utf8') } : { vm: guest.name, path: args.path, exists: false };
    },
  });
  return [write, read];
}
