// Central mode: the change record lives in PostgreSQL, so a change instance A answered `running`
// for is followed by a client of instance B with get_change to its end, and B can cancel a change
// A runs (CancelTask reaches vCenter from B; A, which follows the task, audits its end). Scaled
// down: a call bound of 2 s and a clone of 8 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpMcpClient } from '../support/http-client.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';
import { PgChangeStore } from '../../src/state/pg/change-store.js';
import type { ChangeRecord } from '../../src/core/change-record.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off }
`;

let central: Central;
let A: Instance;
let B: Instance;
let aliceA: HttpMcpClient;
let bobB: HttpMcpClient;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-changes-' });
  central.lab.config.settings.callBoundSeconds = 2;
  central.lab.vcenters.get('lab-vc1')!.faults.taskDuration('CloneVM_Task', 8_000);
  A = await central.startInstance();
  B = await central.startInstance();
  aliceA = await central.as('alice', A);
  bobB = await central.as('bob', B);
}, 120_000);

afterAll(async () => {
  await central?.close();
});

const outcomeLines = async (id: string) => (await B.runtime.central!.db.query<{ phase: string }>(
  "SELECT phase FROM audit_log WHERE id = $1 AND phase IN ('executed', 'failed') ORDER BY seq", [id])).rows.map((r) => r.phase);

describe('change records are shared', () => {
  it('a change A answered running for is followed to executed by get_change on B', async () => {
    const first = ok(await aliceA.call('clone_vm', { target: 'lab-vc1', vm: 'web-01', name: 'central-clone-1' }));
    expect(first).toMatchObject({ state: 'running', running: { kind: 'vsphere_task' } });
    const id = first.change_id as string;
    let view = ok(await bobB.call('get_change', { change_id: id }));
    expect(view).toMatchObject({ change_id: id, state: 'running', tool: 'clone_vm', target: 'lab-vc1' });
    for (let i = 0; i < 20 && view.state === 'running'; i++) view = ok(await bobB.call('get_change', { change_id: id, wait_seconds: 3 }));
    expect(view).toMatchObject({ state: 'executed', outcome: { ok: true } });
    expect(await outcomeLines(id)).toEqual(['executed']);
  }, 120_000);

  it('cancel_change on B stops the clone A follows', async () => {
    const first = ok(await aliceA.call('clone_vm', { target: 'lab-vc1', vm: 'web-02', name: 'central-clone-2' }));
    const id = first.change_id as string;
    const cancelled = ok(await bobB.call('cancel_change', { change_id: id }));
    expect(cancelled).toMatchObject({ change_id: id, cancel: expect.stringMatching(/^(cancelled|requested)$/) });
    await expect.poll(async () => outcomeLines(id), { timeout: 30_000 }).toEqual(['failed']);
    expect(ok(await bobB.call('get_change', { change_id: id, wait_seconds: 3 })).state).toBe('cancelled');
    expect(central.lab.vcenters.get('lab-vc1')!.model.vmsNamed('central-clone-2')).toEqual([]);
  }, 120_000);
});

describe('the undos of a change, in PostgreSQL', () => {
  it('undosOf finds the undo_change records of one change, oldest first, and no other change\'s', async () => {
    const store = new PgChangeStore(B.runtime.central!.db);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const rec = (id: string, started: number, undoOf?: string): ChangeRecord => ({
      id, tool: undoOf ? 'undo_change' : 'power_on_vm', target: { name: 'lab-vc1', host: 'h', tags: [] }, identity: 'alice', via: 'mcp',
      objects: [], state: 'executed', executing: true, owner: store.owner, started_at: at(started), updated_at: at(started),
      ...(undoOf ? { undo_of: undoOf, undo_results: [{ id: 'power:vm-103', status: 'failed' as const, says: 'power off' }] } : {}),
    });
    try {
      for (const r of [rec('orig-1', 1), rec('undo-b', 3, 'orig-1'), rec('undo-a', 2, 'orig-1'), rec('undo-other', 4, 'orig-2')]) await store.create(r);
      const undos = await store.undosOf('orig-1');
      expect(undos.map((u) => u.id)).toEqual(['undo-a', 'undo-b']);
      expect(undos[0]!.undo_results).toEqual([{ id: 'power:vm-103', status: 'failed', says: 'power off' }]);
      expect(await store.undosOf('orig-3')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
