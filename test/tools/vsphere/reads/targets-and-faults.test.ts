// list_targets (versions, a dead vCenter, the same vCenter configured twice) and the fan-out's
// isolation: a hung target answers its timeout slot while the healthy one answers in the same call,
// and is then marked down (answered at once) until it answers again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { LAB_VCENTERS } from '../../../../src/lab/topology.js';
import { errorSlot, okOf, slots, startAliasHarness, type AliasHarness } from './support.js';

interface TargetRow {
  name: string; host: string; port?: number; tags: string[]; standalone_host: boolean; dry_run: boolean; connected: boolean;
  api_version: string | null; instance_uuid: string | null; last_error: { code: string; message: string } | null; shares_instance_with: string[];
  reachability: { state: 'up' | 'down'; down_since: string | null; retry_after: number | null };
}

const FANOUT_MS = 1_500;

describe('with lab-vc2 hung', () => {
  let h: LabHarness;
  beforeAll(async () => {
    h = await startLabHarness({ fanOutTimeoutMs: FANOUT_MS });
    await h.client.listTools();
    h.lab.vcenters.get('lab-vc2')!.faults.hang({}, 'forever');
  });
  afterAll(async () => {
    await h?.lab.vcenters.get('lab-vc2')!.faults.reset();
    await h?.close();
  });

  it('list_targets reports lab-vc1 with its version and lab-vc2 with its timeout, in one bounded call', async () => {
    const t0 = Date.now();
    const r = await h.call('list_targets');
    expect(Date.now() - t0).toBeLessThan(FANOUT_MS + 3_000);
    expect(r.isError, r.text).toBe(false);
    const [vc1, vc2] = (r.data as { targets: TargetRow[] }).targets;
    expect(vc1).toMatchObject({
      name: 'lab-vc1', host: '127.0.0.1', port: h.lab.vcenters.get('lab-vc1')!.port, tags: LAB_VCENTERS[0]!.tags,
      standalone_host: false, dry_run: false, connected: true, api_version: '8.0.2.0',
      instance_uuid: LAB_VCENTERS[0]!.instanceUuid, last_error: null, shares_instance_with: [],
    });
    expect(vc2).toMatchObject({ name: 'lab-vc2', connected: false, api_version: null, instance_uuid: null });
    expect(vc2!.last_error).toMatchObject({ code: 'timeout', retryable: true });
    expect(vc1!.reachability).toEqual({ state: 'up', down_since: null, retry_after: null });
    expect(vc2!.reachability).toMatchObject({ state: 'down', down_since: expect.any(String), retry_after: expect.any(Number) });
  });

  it('list_vms on all: lab-vc1 answers; lab-vc2, marked down by that timeout, is a retryable unreachable slot', async () => {
    const t0 = Date.now();
    const r = await h.call('list_vms', { target: 'all', limit: 5 });
    expect(Date.now() - t0).toBeLessThan(FANOUT_MS + 3_000);
    expect(slots(r).map((s) => s.target)).toEqual(['lab-vc1', 'lab-vc2']);
    expect(okOf<{ total: number; returned: number }>(r, 'lab-vc1')).toMatchObject({ total: 48, returned: 5 });
    const e = errorSlot(r, 'lab-vc2');
    expect(e).toMatchObject({ code: 'unreachable', retryable: true });
    expect(e.message).toContain('marked down');
    const audit = h.auditLines().filter((l) => l.tool === 'list_vms');
    expect(audit.at(-1)).toMatchObject({ phase: 'call', target: 'lab-vc1,lab-vc2' });
  });
});

describe('the same vCenter configured twice', () => {
  let a: AliasHarness;
  beforeAll(async () => {
    a = await startAliasHarness('lab-vc1-alias');
  });
  afterAll(async () => {
    await a?.close();
  });

  it('list_targets flags both entries with shares_instance_with; the other target shares nothing', async () => {
    const r = await a.call('list_targets');
    expect(r.isError, r.text).toBe(false);
    const rows = (r.data as { targets: TargetRow[] }).targets;
    expect(rows.map((t) => t.name)).toEqual(['lab-vc1', 'lab-vc1-alias', 'lab-vc2']);
    const by = new Map(rows.map((t) => [t.name, t]));
    expect(by.get('lab-vc1')!.shares_instance_with).toEqual(['lab-vc1-alias']);
    expect(by.get('lab-vc1-alias')!.shares_instance_with).toEqual(['lab-vc1']);
    expect(by.get('lab-vc1-alias')!.instance_uuid).toBe(LAB_VCENTERS[0]!.instanceUuid);
    expect(by.get('lab-vc2')!.shares_instance_with).toEqual([]);
    expect(rows.every((t) => t.connected && t.api_version === '8.0.2.0')).toBe(true);
  });
});
