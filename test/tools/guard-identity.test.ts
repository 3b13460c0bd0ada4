// The guard's answers where the inferred parts of Zerto identity and partial outages could make a
// protected VM look unprotected or hide a second VM of the same name, and change ids on the
// vSphere tools. Whole product against the lab, through a real MCP client.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { LAB_VCENTERS } from '../../src/lab/topology.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const POLICY = `
defaults: {checkpoint: best_effort, approval: single}
targets:
  lab-vc1: {destructive: allow}
  lab-vc2: {destructive: allow}
`;
const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const VPG_APP_CRITICAL = 'aaaaaaaa-0000-4000-8000-000000000002';

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, zvmTaskMs: 50, env: { ENABLE_DESTRUCTIVE: 'true' } });
});
afterAll(async () => h?.close());
afterEach(() => zvmFaults(h.lab.zvms.get('lab-zvm')!).reset());

const zvm = () => h.lab.zvms.get('lab-zvm')!;
const tagged = (vpgId: string, change: string) => zvm().state.checkpoints.get(vpgId)!.filter((c) => c.tag?.endsWith(`| change=${change}`));

describe('guard identity', () => {
  it('when Zerto knows the VM under another server id, the guard verifies it by name and still pins every VPG', async () => {
    zvmFaults(zvm()).vmIdentifierServerId(LAB_VCENTERS[0]!.instanceUuid, '11111111-2222-3333-4444-555555555555');
    const r = await h.call('create_snapshot', { target: 'lab-vc1', vm: 'app-01', name: 'before-upgrade', change_id: 'CHG-ID-1' });
    expect(r.isError, r.text).toBe(false);
    const cp = r.data.checkpoint as { status: string; checkpoints: Array<{ vpg: string }> };
    expect(cp.status).toBe('checkpointed');
    expect(cp.checkpoints.map((c) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
  });

  it('an unprotected VM stays unprotected under that mismatch (no Zerto row by its name) and proceeds', async () => {
    zvmFaults(zvm()).vmIdentifierServerId(LAB_VCENTERS[0]!.instanceUuid, '11111111-2222-3333-4444-555555555555');
    const r = await h.call('create_snapshot', { target: 'lab-vc1', vm: 'web-02', name: 'snap' });
    expect(r.isError, r.text).toBe(false);
    expect((r.data.checkpoint as { status: string }).status).toBe('not_protected');
  });

  it('a retry of a vSphere change with the same change_id reuses the checkpoint; other arguments pin a new one', async () => {
    for (const name of ['one', 'one']) {
      const r = await h.call('create_snapshot', { target: 'lab-vc1', vm: 'app-01', name, change_id: 'CHG-RETRY-7' });
      expect(r.isError, r.text).toBe(false);
      expect(String((r.data.checkpoint as { tag: string }).tag)).toMatch(/\| change=CHG-RETRY-7$/);
    }
    expect(tagged(VPG_APP, 'CHG-RETRY-7')).toHaveLength(1);
    expect(tagged(VPG_APP_CRITICAL, 'CHG-RETRY-7')).toHaveLength(1);
    const other = await h.call('create_snapshot', { target: 'lab-vc1', vm: 'app-01', name: 'two', change_id: 'CHG-RETRY-7' });
    expect(other.isError, other.text).toBe(false);
    expect(tagged(VPG_APP, 'CHG-RETRY-7')).toHaveLength(2);
  });
});

describe('partial outages do not read as complete answers', () => {
  it('with one vCenter of the site unreachable, a lookup by name fails instead of answering from the other', async () => {
    const vc2 = h.lab.vcenters.get('lab-vc2')!;
    await vc2.faults.unreachable();
    try {
      const r = await h.call('zerto_find_protection', { vm: 'app-01' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/lab-vc2/);
      expect(r.text).toMatch(/unreachable|protection_unknown|timeout/);
    } finally {
      await vc2.faults.reachable();
    }
  });

  it('a guard failure at confirm time (ZVM down) keeps the proposal pending; confirming again after recovery executes it', async () => {
    const off = await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', hard: true });
    expect(off.isError, off.text).toBe(false);
    const p = await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-01' });
    expect(p.data).toMatchObject({ state: 'pending', checkpoint_vpgs: ['vpg-app (journal keeps 1 day)'] });
    zvmFaults(zvm()).failRoute('GET /v1/vms', 20, 503, 'Service Unavailable');
    const first = await h.call('confirm_action', { token: p.data.token as string });
    expect(first.isError).toBe(true);
    expect(first.text).toContain('protection_unknown');
    expect(first.text).toContain('still pending');
    expect(h.lab.vcenters.get('lab-vc1')!.model.vm('vm-102').exists).toBe(true);
    zvmFaults(zvm()).reset();
    const second = await h.call('confirm_action', { token: p.data.token as string });
    expect(second.isError, second.text).toBe(false);
    expect(h.lab.vcenters.get('lab-vc1')!.model.vm('vm-102').exists).toBe(false);
  });
});
