// Finding objects by exact name or moid. Names in vSphere are not unique (two folders may each hold
// a `web01`), so lookups return candidates and `resolveOne` refuses to guess: an ambiguous name is
// an error listing every candidate's moid and inventory path. Cost: 3 round trips plus pages.

import { AppError } from '../core/errors.js';
import { snapshot } from './inventory-tree.js';
import type { RetrieveOptions } from './property-collector.js';
import { asMoRef, asString } from './types.js';
import type { VimClient } from './vim-client.js';
import { ownText } from '../core/own-text.js';

export type ObjectKind = 'vm' | 'host' | 'cluster' | 'datastore' | 'network' | 'folder' | 'resource_pool' | 'datacenter';

export const KIND_TYPES: Record<ObjectKind, string[]> = {
  vm: ['VirtualMachine'],
  host: ['HostSystem'],
  cluster: ['ClusterComputeResource'],
  datastore: ['Datastore'],
  // vCenter's views include subtypes of Network; vcsim's match exact types, so both are listed.
  network: ['Network', 'DistributedVirtualPortgroup'],
  folder: ['Folder'],
  resource_pool: ['ResourcePool', 'VirtualApp'],
  datacenter: ['Datacenter'],
};

export interface Candidate {
  name: string;
  moid: string;
  /** vim type (`VirtualMachine`). */
  type: string;
  /** Inventory path, e.g. `/DC0/vm/apps/web01`. */
  path: string;
}

/** Every object of `kind` whose moid or exact name is `nameOrMoid` (the moid match first). */
export async function findObjects(
  client: VimClient,
  kind: ObjectKind,
  nameOrMoid: string,
  opts: RetrieveOptions = {},
): Promise<Candidate[]> {
  const types = KIND_TYPES[kind];
  const snap = await snapshot(client, types.map((type) => ({ type, pathSet: ['name', 'parent'] })), opts);
  const all: Candidate[] = [];
  for (const type of types) {
    for (const oc of snap.byType.get(type) ?? []) {
      const name = asString(oc.props.name) ?? oc.obj.value;
      const parent = asMoRef(oc.props.parent);
      const parentPath = parent ? snap.tree.path(parent) : undefined;
      all.push({ name, moid: oc.obj.value, type: oc.obj.type, path: `${parentPath === '/' ? '' : (parentPath ?? '')}/${name}` });
    }
  }
  // A string can be one object's moid and another's name ("vm-101" named so by someone): both
  // are candidates, and resolveOne refuses to guess between them.
  const hits = all.filter((c) => c.moid === nameOrMoid || c.name === nameOrMoid);
  return hits.sort((a, b) => Number(b.moid === nameOrMoid) - Number(a.moid === nameOrMoid) || a.path.localeCompare(b.path) || a.moid.localeCompare(b.moid));
}

/** Exactly one object, or AppError `not_found` / `ambiguous_name` (details.candidates). */
export async function resolveOne(
  client: VimClient,
  kind: ObjectKind,
  nameOrMoid: string,
  opts: RetrieveOptions = {},
): Promise<Candidate> {
  const found = await findObjects(client, kind, nameOrMoid, opts);
  const label = kind.replace('_', ' ');
  if (found.length === 0) {
    throw new AppError('not_found', `No ${label} named or with moid ${JSON.stringify(nameOrMoid)} on target '${client.target.name}'`, {
      details: { kind, query: nameOrMoid, target: client.target.name },
      hint: ownText(`List the ${label}s of this target to find the exact name or moid.`),
    });
  }
  if (found.length > 1) {
    throw new AppError(
      'ambiguous_name',
      `${found.length} ${label}s are named ${JSON.stringify(nameOrMoid)} on target '${client.target.name}': ${found.map((c) => `${c.moid} (${c.path})`).join(', ')}`,
      {
        details: { kind, query: nameOrMoid, target: client.target.name, candidates: found.map(({ name, moid, path }) => ({ name, moid, path })) },
        hint: ownText('Call again with the moid of the one you mean.'),
      },
    );
  }
  return found[0] as Candidate;
}
