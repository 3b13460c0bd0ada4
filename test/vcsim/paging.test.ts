// The launcher's paging mode (test/vcsim/launcher/paging.go), which the listing bench measures
// against: vcsim then answers RetrievePropertiesEx in pages of maxObjects with a token, as a
// vCenter does. Our pipelined retrieval reads the same objects in the same order whatever the
// page size (fast-check picks them), one ContinueRetrievePropertiesEx per further page; a token is
// served once, and a cancelled one is gone. (Its pages, cut at any byte, decode as the generic
// parser does: fixtures/vcsim-retrieve-page-*.xml in test/vsphere/retrieve-result-stream.test.ts.)

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { VsphereClient } from '../../src/vsphere/client.js';
import { TREE_TYPES } from '../../src/vsphere/inventory-tree.js';
import { retrieve, type PropertySpec } from '../../src/vsphere/property-collector.js';
import { decodeRetrieveResult } from '../../src/vsphere/soap/xml.js';
import type { MoRef } from '../../src/vsphere/types.js';
import { withContainerView } from '../../src/vsphere/views.js';
import { startVcsim, type Vcsim } from '../support/vcsim.js';

const PROPS: PropertySpec[] = [
  { type: 'VirtualMachine', pathSet: ['name', 'runtime.powerState', 'config.uuid', 'parent'] },
  ...TREE_TYPES.map((type) => ({ type, pathSet: ['name', 'parent'] })),
];
const viewSpec = (view: MoRef) => [{ obj: view, skip: true, selectSet: [{ name: 'view', type: 'ContainerView', path: 'view', skip: false }] }];

describe('vcsim with -page-results', () => {
  let sim: Vcsim;
  let client: VsphereClient;
  beforeAll(async () => {
    sim = await startVcsim({ vms: 150, hosts: 2, pageResults: true }); // 300 VMs
    client = new VsphereClient(sim.target('paged'), { secrets: sim.secrets(), keepaliveMs: 0 });
    await client.connect();
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await sim?.stop();
  });

  it('pages at maxObjects, and the pipelined retrieval reads the same objects in one page or many', async () => {
    await withContainerView(client.vim, ['VirtualMachine', ...TREE_TYPES], async (view) => {
      const continues = () => client.stats.byMethod.ContinueRetrievePropertiesEx ?? 0;
      const c0 = continues();
      const whole = await retrieve(client.vim, PROPS, viewSpec(view), { maxObjects: 100_000 });
      expect(continues()).toBe(c0);
      expect(whole.filter((o) => o.obj.type === 'VirtualMachine')).toHaveLength(300);
      const check = async (perPage: number) => {
        const before = continues();
        const paged = await retrieve(client.vim, PROPS, viewSpec(view), { maxObjects: perPage });
        expect(paged).toStrictEqual(whole);
        expect(continues() - before).toBe(Math.ceil(whole.length / perPage) - 1);
      };
      for (const perPage of [1, whole.length - 1, whole.length]) await check(perPage);
      await fc.assert(fc.asyncProperty(fc.integer({ min: 2, max: whole.length + 5 }), check), { numRuns: 12 });
    });
  });

  it('serves a token once and forgets a cancelled one', async () => {
    const vim = client.vim;
    const pc = vim.content.propertyCollector;
    await withContainerView(vim, ['VirtualMachine'], async (view) => {
      const spec = {
        specSet: { propSet: [{ type: 'VirtualMachine', all: false, pathSet: ['name'] }], objectSet: viewSpec(view).map((o) => ({ ...o, selectSet: o.selectSet.map((s) => ({ _type: 'TraversalSpec', ...s })) })) },
        options: { maxObjects: 100 },
      };
      const tokenOf = (returnval: unknown) => decodeRetrieveResult(returnval).token;
      const first = tokenOf(await vim.invoke('RetrievePropertiesEx', pc, spec));
      expect(first).toBeDefined();
      const second = decodeRetrieveResult(await vim.invoke('ContinueRetrievePropertiesEx', pc, { token: first }));
      expect(second.objects).toHaveLength(100);
      const replay = await vim.invoke('ContinueRetrievePropertiesEx', pc, { token: first }).then(() => null, (err: unknown) => err);
      expect(replay).toBeInstanceOf(AppError);
      expect(replay).toMatchObject({ code: 'vim_fault', details: { fault: 'InvalidArgument' } });

      const other = tokenOf(await vim.invoke('RetrievePropertiesEx', pc, spec));
      expect(other).toBeDefined();
      await vim.invoke('CancelRetrievePropertiesEx', pc, { token: other });
      const cancelled = await vim.invoke('ContinueRetrievePropertiesEx', pc, { token: other }).then(() => null, (err: unknown) => err);
      expect(cancelled).toMatchObject({ code: 'vim_fault', details: { fault: 'InvalidArgument' } });
    });
  });
});
