// migrate_vm (vMotion / storage vMotion within one target) and clone_vm (same target). Every name
// (host, datastore, folder, resource pool) is resolved to exactly one moid before anything is
// sent, so the proposal or dry run names the exact objects and vSphere gets moids only.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { CallOptions, Candidate, ObjectKind, VsphereClient } from '../../../vsphere/client.js';
import { defineTool, type AffectedObject } from '../../define.js';
import { DatastoreArg, FolderArg, HostArg, NameArg, ChangeCommonArgs, ResourcePoolArg, TargetArg, VmArg, WouldField } from '../../args.js';
import { resolveChangeVm, vmLabel, vmResolution, type VmChange } from '../support/change-support.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { cloneUndo, migrateUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

/** Exactly one object by name, moid or inventory path ('LabDC1/vm/apps'); never guesses. */
async function resolvePlace(client: VsphereClient, kind: ObjectKind, wanted: string, call: CallOptions): Promise<Candidate> {
  const clean = wanted.replace(/^\/+|\/+$/g, '');
  if (!clean.includes('/')) return client.resolveOne(kind, wanted, call);
  const last = clean.split('/').pop()!;
  const hits = (await client.find(kind, last, call)).filter((c) => c.path.replace(/^\/+/, '') === clean);
  if (hits.length === 1) return hits[0]!;
  const label = kind.replace('_', ' ');
  if (hits.length === 0) {
    throw new AppError('not_found', `No ${label} at inventory path ${quoted(wanted)} on target '${client.target.name}'.`, { hint: ownText(`Give the ${label} by exact name or moid.`) });
  }
  throw new AppError('ambiguous_name', `${hits.length} ${label}s are at ${JSON.stringify(wanted)}: ${hits.map((c) => c.moid).join(', ')}`, {
    hint: ownText('Call again with the moid of the one you mean.'),
    details: { candidates: hits.map(({ name, moid, path }) => ({ name, moid, path })) },
  });
}

const placed = (type: string, c: Candidate): AffectedObject & { moid: string } => ({ type, name: c.name, moid: c.moid, path: c.path });

type Place = { name: string; moid: string };

/** Where the VM goes, by moid, and where it was at resolution. */
interface MigrateChange extends VmChange {
  host?: Place;
  datastore?: Place;
  currentHost: string | null;
}

/** The clone's placement, every part by moid (absent: the source's). */
interface CloneChange extends VmChange {
  placement: { folder?: string; host?: string; datastore?: string; pool?: string };
}

const place = (o: AffectedObject & { moid: string } | undefined): Place | undefined => (o ? { name: o.name, moid: o.moid } : undefined);

export const migrateVm = defineTool({
  name: 'migrate_vm',
  title: 'Migrate a VM (vMotion / storage vMotion)',
  description:
    'Moves one VM to another host (vMotion) and/or datastore (storage vMotion) within one target.',
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: true,
  undo: migrateUndo,
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    host: HostArg.optional().describe('Destination ESXi host (name or moid).'),
    datastore: DatastoreArg.optional().describe("Destination datastore for the VM's files and disks (name or moid)."),
    ...ChangeCommonArgs,
  }).refine((a) => a.host !== undefined || a.datastore !== undefined, { message: 'give a destination host, datastore, or both' }),
  output: z.object({
    target: z.string(),
    vm: z.string(),
    moid: z.string(),
    kind: z.enum(['vmotion', 'storage_vmotion', 'vmotion_and_storage_vmotion', 'none']),
    from: z.object({ host: z.string().nullable(), datastores: z.array(z.string()) }),
    to: z.object({ host: z.string().nullable(), datastore: z.string().nullable() }),
    changed: z.boolean(),
    task: z.string().optional(),
    ...WouldField,
  }),
  async resolve(args, ctx): Promise<MigrateChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const extra = await onTarget(ctx, target.name, async (client, call) => {
      const out: Array<AffectedObject & { moid: string }> = [];
      if (args.host) out.push(placed('host', await resolvePlace(client, 'host', args.host, call)));
      if (args.datastore) out.push(placed('datastore', await resolvePlace(client, 'datastore', args.datastore, call)));
      return out;
    });
    const host = extra.find((e) => e.type === 'host');
    const ds = extra.find((e) => e.type === 'datastore');
    const moves = [
      host ? `host ${d.host?.name ?? '?'} -> ${host.name}` : null,
      ds ? `datastore ${d.datastores.map((x) => x.name).join('+') || '?'} -> ${ds.name}` : null,
    ].filter(Boolean);
    const bound = { ...(host ? { host: place(host)! } : {}), ...(ds ? { datastore: place(ds)! } : {}), currentHost: d.host?.name ?? null };
    return {
      ...vmResolution(vm, `migrate ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)}: ${moves.join(', ')}`,
        [...extra, { type: 'placement', name: 'current', host: d.host?.name ?? null, host_moid: d.host?.moid ?? null, datastores: d.datastores.map((x) => x.moid), datastore_names: d.datastores.map((x) => x.name) }]),
      ...bound,
    };
  },
  async execute(_args, { vm, host, datastore: ds, currentHost }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      // Decide on the VM as it is now, not as it was at resolution.
      const now = await client.getVmDetails(vm.moid, call);
      const hostMove = host !== undefined && host.moid !== now.host?.moid;
      const dsMove = ds !== undefined && !(now.datastores.length === 1 && now.datastores[0]!.moid === ds.moid);
      const kind = hostMove && dsMove ? 'vmotion_and_storage_vmotion' as const : hostMove ? 'vmotion' as const : dsMove ? 'storage_vmotion' as const : 'none' as const;
      const base = {
        target: vm.target, vm: vm.name, moid: vm.moid, kind,
        from: { host: now.host?.name ?? currentHost, datastores: now.datastores.map((x) => x.name) },
        to: { host: host?.name ?? now.host?.name ?? null, datastore: ds?.name ?? null },
      };
      if (kind === 'none') return { ...base, changed: false };
      const { task } = await client.relocate(vm.moid, { ...(hostMove ? { host: host!.moid } : {}), ...(dsMove ? { datastore: ds!.moid } : {}) }, phaseWait(ctx, call, 0, 1, 'migrate'));
      return { ...base, changed: true, task };
    });
  },
  async dryRun(_args, resolution) {
    return { would: resolution.summary ?? 'migrate the VM' };
  },
});

export const cloneVm = defineTool({
  name: 'clone_vm',
  title: 'Clone a VM',
  description:
    "Clones one VM to a new, unused name on the same target; by default into the source's folder, host, pool and datastore, powered off. Returns the new moid.",
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: false,
  undo: cloneUndo,
  input: z.object({
    target: TargetArg,
    vm: VmArg.describe('Source VM by exact name or moid.'),
    name: NameArg.max(80).describe('Name of the new VM (1-80 characters), unused on this target.'),
    folder: FolderArg.optional().describe("Destination folder (name, moid or path); default: the source's."),
    host: HostArg.optional(),
    datastore: DatastoreArg.optional(),
    resource_pool: ResourcePoolArg.optional(),
    power_on: z.boolean().default(false).describe('Power the clone on when it is created.'),
    ...ChangeCommonArgs,
  }),
  output: z.object({
    target: z.string(),
    source_vm: z.string(),
    source_moid: z.string(),
    new_vm: z.object({ name: z.string(), moid: z.string() }),
    powered_on: z.boolean(),
    task: z.string(),
    ...WouldField,
  }),
  async resolve(args, ctx): Promise<CloneChange> {
    const vm = await resolveChangeVm(ctx, args);
    const { details: d, target } = vm;
    const extra = await onTarget(ctx, target.name, async (client, call) => {
      const taken = (await client.find('vm', args.name, call)).filter((c) => c.name === args.name);
      if (taken.length) {
        throw new AppError('invalid_input', `A VM named ${quoted(args.name)} already exists on target '${target.name}' (${taken.map((c) => `${c.moid} at ${c.path}`).join(', ')}).`, {
          hint: ownText('Pick an unused name: duplicate names make later calls by name ambiguous.'),
        });
      }
      const out: Array<AffectedObject & { moid: string }> = [];
      if (args.folder) out.push(placed('folder', await resolvePlace(client, 'folder', args.folder, call)));
      if (args.host) out.push(placed('host', await resolvePlace(client, 'host', args.host, call)));
      if (args.datastore) out.push(placed('datastore', await resolvePlace(client, 'datastore', args.datastore, call)));
      if (args.resource_pool) out.push(placed('resource_pool', await resolvePlace(client, 'resource_pool', args.resource_pool, call)));
      return out;
    });
    const where = extra.map((e) => `${e.type.replace('_', ' ')} ${e.name}`).join(', ');
    const moidOf = (type: string) => extra.find((e) => e.type === type)?.moid;
    const placement: CloneChange['placement'] = {};
    for (const [key, type] of [['folder', 'folder'], ['host', 'host'], ['datastore', 'datastore'], ['pool', 'resource_pool']] as const) {
      const moid = moidOf(type);
      if (moid) placement[key] = moid;
    }
    return {
      ...vmResolution(vm,
        `clone ${vmLabel(d.name, d.moid)} on target ${quoted(target.name)} into new VM ${quoted(args.name)}${where ? ` (${where})` : ' (same folder, host and datastore)'}${args.power_on ? ', powered on' : ''}`,
        extra),
      placement,
    };
  },
  async execute(args, { vm, placement }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      const { task, vm: newMoid } = await client.clone(vm.moid, { name: args.name, powerOn: args.power_on, ...placement }, phaseWait(ctx, call, 0, 1, 'clone'));
      return { target: vm.target, source_vm: vm.name, source_moid: vm.moid, new_vm: { name: args.name, moid: newMoid }, powered_on: args.power_on, task };
    });
  },
  async dryRun(_args, resolution) {
    return { would: resolution.summary ?? 'clone the VM' };
  },
});
