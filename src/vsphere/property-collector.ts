// PropertyCollector retrieval: always explicit property paths (never `all: true`), paged with
// RetrievePropertiesEx + ContinueRetrievePropertiesEx. vCenter caps pages below maxObjects (e.g.
// at 100) so the page size is never assumed; "no token" is the end (vcsim ignores maxObjects and has
// no Continue at all). A retrieval abandoned mid-way cancels its token, best effort.

import type { CallOptions } from './soap/transport.js';
import { decodeRetrieveResult } from './soap/xml.js';
import type { MoRef, ObjectContent } from './types.js';
import type { VimClient } from './vim-client.js';

export interface PropertySpec {
  type: string;
  pathSet: string[];
}

export interface TraversalSpec {
  name: string;
  type: string;
  path: string;
  skip: boolean;
}

export interface ObjectSpec {
  obj: MoRef;
  skip?: boolean;
  selectSet?: TraversalSpec[];
}

export interface RetrieveOptions extends CallOptions {
  /** Objects per page asked of the server (it may send fewer). Default 500. */
  maxObjects?: number;
}

function encodeSpec(propSet: PropertySpec[], objectSet: ObjectSpec[]) {
  return {
    propSet: propSet.map((p) => ({ type: p.type, all: false, pathSet: p.pathSet })),
    objectSet: objectSet.map((o) => ({
      obj: o.obj,
      skip: o.skip ?? false,
      selectSet: o.selectSet?.map((s) => ({ _type: 'TraversalSpec', name: s.name, type: s.type, path: s.path, skip: s.skip })),
    })),
  };
}

/** Retrieves every page. Cost: 1 round trip + 1 per extra page. */
export async function retrieve(
  client: VimClient,
  propSet: PropertySpec[],
  objectSet: ObjectSpec[],
  opts: RetrieveOptions = {},
): Promise<ObjectContent[]> {
  const pc = client.content.propertyCollector;
  const first = await client.invoke(
    'RetrievePropertiesEx',
    pc,
    { specSet: encodeSpec(propSet, objectSet), options: { maxObjects: opts.maxObjects ?? 500 } },
    opts,
  );
  let page = decodeRetrieveResult(first);
  const out = [...page.objects];
  try {
    while (page.token !== undefined) {
      const next = await client.invoke('ContinueRetrievePropertiesEx', pc, { token: page.token }, opts);
      page = decodeRetrieveResult(next);
      out.push(...page.objects);
    }
  } catch (err) {
    if (page.token !== undefined) {
      // Frees the server-side result set; the caller's signal may be aborted already.
      await client
        .invoke('CancelRetrievePropertiesEx', pc, { token: page.token }, { timeoutMs: 5_000 })
        .catch(() => undefined);
    }
    throw err;
  }
  return out;
}

/** Properties of specific objects (one round trip for any number of objects, plus pages). */
export function retrieveObjects(
  client: VimClient,
  refs: MoRef[],
  pathsByType: Record<string, string[]>,
  opts: RetrieveOptions = {},
): Promise<ObjectContent[]> {
  if (refs.length === 0) return Promise.resolve([]);
  const types = [...new Set(refs.map((r) => r.type))];
  const propSet = types.map((t) => ({ type: t, pathSet: pathsByType[t] ?? pathsByType['*'] ?? ['name'] }));
  return retrieve(client, propSet, refs.map((obj) => ({ obj })), opts);
}

/** Properties of one object, or undefined when the server returned nothing for it. */
export async function retrieveOne(
  client: VimClient,
  ref: MoRef,
  paths: string[],
  opts: RetrieveOptions = {},
): Promise<ObjectContent | undefined> {
  const [oc] = await retrieve(client, [{ type: ref.type, pathSet: paths }], [{ obj: ref }], opts);
  return oc;
}
