// list_vms over a real MCP client against the simulated lab, whose vCenter pages at 100 objects
// whatever maxObjects asks: the round trips of one listing are its pages plus a constant (the
// ContainerView's creation and destruction), so a thousand more VMs cost exactly ten more; and the
// text block carries the very JSON of structuredContent (one serialization, README "Performance").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { unfenced } from '../../../../src/mcp/output/untrusted.js';
import { okOf } from './support.js';

interface VmsPage { total: number; returned: number; vms: Array<{ name: string }> }

const LAB_PAGE = 100;

/** One list_vms call on lab-vc1: the SOAP round trips the lab counted, and the answer. */
async function listing(h: LabHarness, limit: number): Promise<{ trips: number; page: VmsPage }> {
  const model = h.lab.vcenters.get('lab-vc1')!.model;
  const before = model.roundTrips;
  const r = await h.call('list_vms', { target: 'lab-vc1', limit });
  return { trips: model.roundTrips - before, page: okOf<VmsPage>(r, 'lab-vc1') };
}

describe('list_vms paging against the lab vCenter', () => {
  let small: LabHarness;
  let large: LabHarness;
  beforeAll(async () => {
    small = await startLabHarness({ fillerVms: 230 });
    large = await startLabHarness({ fillerVms: 1230 });
    for (const h of [small, large]) {
      await h.client.listTools(); // the client validates results against the output schema
      await listing(h, 1); // the pool's login to the target happens on its first call, not counted below
    }
  }, 120_000);
  afterAll(async () => {
    await small?.close();
    await large?.close();
  });

  it('makes one round trip per page plus a constant, the same on every call', async () => {
    const a = await listing(small, 500);
    const b = await listing(large, 500);
    expect(b.page.total - a.page.total).toBe(1000);
    // Ten more pages of 100, and nothing else grows with the inventory.
    expect(b.trips - a.trips).toBe(1000 / LAB_PAGE);
    // A page per 100 objects (the VMs and the fewer than 100 folders, hosts, clusters and pools
    // of the tree), plus the view's creation and destruction.
    expect(a.trips).toBeGreaterThanOrEqual(Math.ceil(a.page.total / LAB_PAGE) + 2);
    expect(a.trips).toBeLessThanOrEqual(Math.ceil(a.page.total / LAB_PAGE) + 3);
    expect((await listing(small, 500)).trips).toBe(a.trips);
    expect((await listing(large, 500)).trips).toBe(b.trips);
    // The page limit of the answer does not change what is read from the server.
    expect((await listing(large, 5)).trips).toBe(b.trips);
  });

  it('sends the text block with exactly the JSON of structuredContent', async () => {
    const res = await large.client.callTool({ name: 'list_vms', arguments: { target: 'lab-vc1', limit: 500 } }) as CallToolResult;
    const blocks = res.content as Array<{ type: string; text: string }>;
    expect(blocks).toHaveLength(1);
    const json = unfenced(blocks[0]!.text);
    expect(JSON.parse(json)).toEqual(res.structuredContent);
    // Byte for byte: the client's parse of structuredContent re-serializes to the text's JSON.
    expect(JSON.stringify(res.structuredContent)).toBe(json);
    const page = (res.structuredContent as { results: Array<{ ok: VmsPage }> }).results[0]!.ok;
    expect(page.returned).toBe(500);
    expect(page.vms).toHaveLength(500);
    expect(json).toContain('"_untrusted"');
  });
});
