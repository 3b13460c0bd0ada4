// The mutating-tool catalog as the agent sees it: which tools (of this and other MCP servers)
// change a VM, and which argument names the VM. The agent may add entries (kept in a state file
// beside the audit log, or in PostgreSQL in central mode; never in config.json) and remove only the entries it added.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { MutatingCatalog } from '../../core/catalog.js';
import { defineTool, type CallContext, type Resolution } from '../define.js';
import { siteTarget, zertoOf } from './zerto-common.js';
import { WouldField } from '../args.js';
import { ownText } from '../../core/own-text.js';

const EntryOut = z.object({
  tool: z.string(),
  vm_arg: z.string().describe('Argument naming the VM(s): a dotted path into the arguments; a list there guards every VM in it.'),
  platform: z.enum(['linux', 'windows', 'any']),
  note: z.string(),
  source: z.enum(['built_in', 'config', 'added']).describe('built_in: this server\'s own tools; config: the operator\'s config.json; added: by an agent.'),
  removable: z.boolean().describe('Only entries added by an agent can be removed by one.'),
});

const ToolNameArg = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:/-]+$/, 'a tool name: letters, digits and _ . : / - only')
  .describe('The tool\'s name as its MCP server lists it, e.g. "ssh_exec" or "ansible/run_playbook".');

// Without a vm_arg the guard cannot tell which VM a call changes, so an entry without one is useless.
const VmArgPath = z
  .string()
  .min(1, 'vm_arg is required: without it the guard cannot tell which VM the tool changes')
  .max(200)
  .regex(/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/, 'an argument name or dotted path such as "host", "hosts" or "target.vm"')
  .describe('Which argument of that tool names the VM (name, FQDN, short hostname or IP), e.g. "host"; a dotted path ("target.host") reaches into objects; when it holds a list, every VM in it is guarded.');

function catalogOf(ctx: { services: CallContext['services'] }): MutatingCatalog {
  const c = ctx.services.ext.catalog;
  if (!c) throw new AppError('internal', ownText('The mutating catalog is not available in this server.'));
  return c;
}

/** Catalog calls are decided against the first configured Zerto site (the catalog guards with it). */
function catalogResolution(ctx: CallContext, summary: string, affected: Resolution['affected'] = []): Resolution {
  return { targets: [siteTarget(zertoOf(ctx).sites[0]!)], affected, summary };
}

export const zertoListMutatingTools = defineTool({
  name: 'zerto_list_mutating_tools',
  title: 'List the mutating-tool catalog',
  description:
    "Lists the other servers' tools zerto_guard_before_mutate guards, with the argument naming the VM (vm_arg) and each entry's origin. Unlisted tools pass unguarded.",
  category: 'read',
  toolset: 'zerto_catalog',
  idempotent: true,
  input: z.object({}),
  output: z.object({ entries: z.array(EntryOut) }),
  async resolve(_args, ctx) {
    return catalogResolution(ctx, 'list the mutating-tool catalog');
  },
  async execute(_args, _resolution, ctx) {
    return { entries: await catalogOf(ctx).list() };
  },
});

export const zertoAddMutatingTool = defineTool({
  name: 'zerto_add_mutating_tool',
  title: 'Add a tool to the mutating-tool catalog',
  description:
    "Adds another MCP server's tool to the guard's catalog, with the argument that names the VM (vm_arg). Stored beside the audit log (central mode: in PostgreSQL), kept across restarts; existing entries cannot be changed.",
  category: 'mutate',
  toolset: 'zerto_catalog',
  idempotent: true,
  guard: false,
  input: z.object({
    tool: ToolNameArg,
    vm_arg: VmArgPath,
    platform: z.enum(['linux', 'windows', 'any']).default('any').describe('Guest platform the tool acts on (informational).'),
    note: z.string().max(300).default('').describe('Why the tool is mutating, for the operator.'),
  }),
  output: z.object({ entry: EntryOut.optional(), message: z.string().optional(), ...WouldField }),
  async resolve(args, ctx) {
    return catalogResolution(ctx, `add '${args.tool}' (vm_arg '${args.vm_arg}') to the mutating catalog`, [{ type: 'catalog_entry', name: args.tool }]);
  },
  async execute(args, _resolution, ctx) {
    const entry = await catalogOf(ctx).add({ tool: args.tool, vm_arg: args.vm_arg, platform: args.platform, note: args.note });
    return { entry, message: `'${args.tool}' is now guarded by zerto_guard_before_mutate (VMs read from '${args.vm_arg}'). Stored in ${catalogOf(ctx).storedIn}, not in config.json.` };
  },
  async dryRun(args) {
    return { would: `add '${args.tool}' with vm_arg '${args.vm_arg}' to the catalog` };
  },
});

export const zertoRemoveMutatingTool = defineTool({
  name: 'zerto_remove_mutating_tool',
  title: 'Remove an added tool from the mutating-tool catalog',
  description:
    'Removes a catalog entry added with zerto_add_mutating_tool (built-in and config.json entries cannot be removed).',
  category: 'mutate',
  toolset: 'zerto_catalog',
  idempotent: true,
  guard: false,
  input: z.object({ tool: ToolNameArg }),
  output: z.object({ removed: EntryOut.optional(), message: z.string().optional(), ...WouldField }),
  async resolve(args, ctx) {
    return catalogResolution(ctx, `remove '${args.tool}' from the mutating catalog`, [{ type: 'catalog_entry', name: args.tool }]);
  },
  async execute(args, _resolution, ctx) {
    const removed = await catalogOf(ctx).remove(args.tool);
    return { removed, message: `'${args.tool}' is no longer in the catalog; calls to it pass through the guard unguarded.` };
  },
  async dryRun(args) {
    return { would: `remove '${args.tool}' from the catalog` };
  },
});
