// ContainerViews: a view over every object of some types below a container, read through the
// PropertyCollector in one traversal. The view is a server-side resource, so it is always
// destroyed in `finally`, with its own deadline rather than the caller's (possibly aborted) signal,
// as govmomi does with context.Background().

import { retrieve, type PropertySpec, type RetrieveOptions } from './property-collector.js';
import type { MoRef, ObjectContent } from './types.js';
import type { VimClient } from './vim-client.js';

export async function withContainerView<T>(
  client: VimClient,
  types: string[],
  fn: (view: MoRef) => Promise<T>,
  opts: RetrieveOptions & { container?: MoRef } = {},
): Promise<T> {
  const sc = client.content;
  const view = (await client.invoke(
    'CreateContainerView',
    sc.viewManager,
    { container: opts.container ?? sc.rootFolder, type: types, recursive: true },
    opts,
  )) as MoRef;
  try {
    return await fn(view);
  } finally {
    await client.invoke('DestroyView', view, {}, { timeoutMs: 10_000 }).catch(() => undefined);
  }
}

/**
 * Every object of `propSet`'s types below the root, with the given paths. Cost: 3 round trips
 * (create view, retrieve, destroy) plus one per extra page, whatever the number of objects.
 */
export function retrieveFromView(
  client: VimClient,
  propSet: PropertySpec[],
  opts: RetrieveOptions & { container?: MoRef } = {},
): Promise<ObjectContent[]> {
  const types = [...new Set(propSet.map((p) => p.type))];
  return withContainerView(
    client,
    types,
    (view) =>
      retrieve(
        client,
        propSet,
        [{ obj: view, skip: true, selectSet: [{ name: 'view', type: 'ContainerView', path: 'view', skip: false }] }],
        opts,
      ),
    opts,
  );
}
