// Guard bookkeeping: the pipeline's own guard reuses a checkpoint only for a
// true retry of the same call (same change_id, tool and arguments) and says so (`reused: true`)
// in the result and the audit line; the same change_id with other arguments pins a new one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ taskMs: 20, zvmTaskMs: 50 });
});
afterAll(async () => h?.close());

type Guarded = { checkpoint: { status: string; tag: string; reused?: boolean; checkpoints: Array<{ reused?: boolean; checkpoint_id: string }> }; audit_id: string };

async function write(content: string): Promise<Guarded> {
  const r = await h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content, change_id: 'step-x' });
  expect(r.isError, r.text).toBe(false);
  return r.data as unknown as Guarded;
}

describe('the guard step under one change_id', () => {
  it('a true retry reuses and says reused: true (result and audit); other arguments get a new checkpoint', async () => {
    const first = await write('a = 1\n');
    expect(first.checkpoint).toMatchObject({ status: 'checkpointed', reused: false });
    const retry = await write('a = 1\n');
    expect(retry.checkpoint.tag).toBe(first.checkpoint.tag);
    expect(retry.checkpoint.reused).toBe(true);
    expect(retry.checkpoint.checkpoints.every((c) => c.reused === true)).toBe(true);
    const line = h.auditLines().find((l) => l.id === retry.audit_id && l.phase === 'checkpointed')!;
    expect(line.detail).toMatchObject({ reused: true });
    const step2 = await write('a = 2\n');
    expect(step2.checkpoint.tag).not.toBe(first.checkpoint.tag);
    expect(step2.checkpoint.reused).toBe(false);
  });
});
