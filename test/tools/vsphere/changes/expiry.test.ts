// A proposal of a real destructive tool expires after the TTL (the shortest allowed, 5 s) and is
// then refused as confirmation_expired. The confirmation store runs on a clock the test moves,
// so nothing waits for the TTL to pass; the lab's own clocks stay real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabHarness } from '../../../support/lab-harness.js';
import { errorOf, mutatingCalls, ok, startChangeHarness, vmExists } from './support.js';

let h: LabHarness;
let now = Date.now();
beforeAll(async () => {
  h = await startChangeHarness({ env: { CONFIRMATION_TTL_SECONDS: '5' }, clock: () => now });
});
afterAll(async () => {
  await h?.close();
});

describe('proposal expiry', () => {
  it('an expired delete_vm proposal is refused, audited as expired, and deletes nothing', async () => {
    const p = ok(await h.call('delete_vm', { target: 'lab-vc1', vm: 'web-02' }));
    expect(p.expires_in_seconds).toBe(5);
    h.lab.callLog.clear();
    now += 4_900;
    expect(ok(await h.call('list_pending_actions')).proposals).toEqual([expect.objectContaining({ state: 'pending', expires_in_seconds: 0 })]);
    now += 400;
    const e = errorOf(await h.call('confirm_action', { token: p.token as string }));
    expect(e.code).toBe('confirmation_expired');
    expect(e.hint).toContain('fresh proposal');
    expect(mutatingCalls(h)).toEqual([]);
    expect(vmExists(h, 'vm-103')).toBe(true);
    await expect.poll(() => h.auditLines().filter((l) => l.tool === 'delete_vm').map((l) => l.phase)).toEqual(['proposed', 'expired']);
  });
});
