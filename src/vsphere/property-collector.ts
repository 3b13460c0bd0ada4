// PropertyCollector retrieval: always explicit property paths (never `all: true`), paged with
// RetrievePropertiesEx + ContinueRetrievePropertiesEx. vCenter caps pages below maxObjects (e.g.
// at 100) so the page size is never assumed; "no token" is the end (vcsim ignores maxObjects and has
// no Continue at all). A retrieval abandoned mid-way cancels its token, best effort.

import { RetrieveResultStream, type RetrievePage } from './soap/retrieve-result-stream.js';
import type { CallOptions } from './soap/transport.js';
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
  /** Objects per page asked of the server (it may send fewer). Default DEFAULT_MAX_OBJECTS. */
  maxObjects?: number;
}

/** Objects per page asked for by default (docs/performance.md: chosen by measurement). */
export const DEFAULT_MAX_OBJECTS = 500;

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

/** vcsim's answer to a retrieval without a session: every object's every property NotAuthenticated. */
function isUnauthenticatedPage(page: RetrievePage): boolean {
  return (
    page.objects.length > 0 &&
    page.objects.every(
      (o) => Object.keys(o.props).length === 0 && o.missing.length > 0 && o.missing.every((m) => m.faultName === 'NotAuthenticated'),
    )
  );
}

/** One page on the wire: its token as soon as it is decoded, and the whole page. */
interface PageCall {
  token: Promise<string | undefined>;
  page: Promise<RetrievePage>;
  abort: AbortController;
}

function requestPage(client: VimClient, method: string, params: Record<string, unknown>, opts: RetrieveOptions): PageCall {
  const abort = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, abort.signal]) : abort.signal;
  let announce: (token: string | undefined) => void = () => {};
  const token = new Promise<string | undefined>((resolve) => (announce = resolve));
  const page = client.session.invokeReading(
    method,
    client.content.propertyCollector,
    params,
    { ...opts, signal },
    () => new RetrieveResultStream(announce),
    isUnauthenticatedPage,
  );
  page.then((p) => announce(p.token), () => announce(undefined));
  return { token, page, abort };
}

/**
 * Retrieves every page. Cost: 1 round trip + 1 per extra page. Pipelined: the next page is asked
 * for as soon as this page's token has streamed in, so it is produced and sent while this one is
 * still being read and decoded; at most two pages are in flight.
 */
export async function retrieve(
  client: VimClient,
  propSet: PropertySpec[],
  objectSet: ObjectSpec[],
  opts: RetrieveOptions = {},
): Promise<ObjectContent[]> {
  const pc = client.content.propertyCollector;
  const continuation = (token: string) => requestPage(client, 'ContinueRetrievePropertiesEx', { token }, opts);
  let current = requestPage(
    client,
    'RetrievePropertiesEx',
    { specSet: encodeSpec(propSet, objectSet), options: { maxObjects: opts.maxObjects ?? DEFAULT_MAX_OBJECTS } },
    opts,
  );
  let next: PageCall | undefined;
  let liveToken: string | undefined; // the server-side result set to cancel if we give up
  const out: ObjectContent[] = [];
  try {
    for (;;) {
      const early = await current.token;
      if (early !== undefined) {
        liveToken = early;
        next = continuation(early);
        next.page.catch(() => undefined); // awaited below, or abandoned on a failure
      }
      const page = await current.page;
      liveToken = page.token;
      if (page.token !== early) {
        // The streamed token was not the page's (only a replayed or unusual answer does this).
        next?.abort.abort();
        next = page.token !== undefined ? continuation(page.token) : undefined;
        next?.page.catch(() => undefined);
      }
      for (const o of page.objects) out.push(o);
      if (next === undefined) return out;
      current = next;
      next = undefined;
    }
  } catch (err) {
    next?.abort.abort();
    if (liveToken !== undefined) {
      // Frees the server-side result set; the caller's signal may be aborted already.
      await client
        .invoke('CancelRetrievePropertiesEx', pc, { token: liveToken }, { timeoutMs: 5_000 })
        .catch(() => undefined);
    }
    throw err;
  }
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
