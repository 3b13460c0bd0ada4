// The guard waits no longer than it must: the first poll straight after the insert, then the
// configured interval, and the checkpoint seen by the first listing after the ZVM lists it. Read
// off the call log's sequence (which call, how many), not off elapsed time.

import { afterEach, describe, expect, it } from 'vitest';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { labLocator, startLab, type LabHandle } from './support/lab.js';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

const POLL_MS = 100;
const LISTING_DELAY_MS = 600;

describe('guard polling against a listing delay', () => {
  it('polls early, then at the interval, and sees the checkpoint on the first listing after it appears', async () => {
    lab = await startLab({ taskDurationMs: 150 });
    zvmFaults(lab.zvm).lateCheckpoint(LISTING_DELAY_MS);
    const found = await findProtection(lab.client, 'web-01', { locator: labLocator() });
    const from = lab.callLog.calls.at(-1)!.seq;
    const res = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit', vm: 'web-01', changeId: 'poll-1', pollMs: POLL_MS, timeoutMs: 10_000 });
    const calls = lab.callLog.calls.filter((c) => c.seq > from && c.source === 'zvm:lab-zvm' && !c.method.startsWith('POST /auth'));
    const methods = calls.map((c) => c.method);
    // Early: the task is asked about right after the insert, before any interval has passed.
    const insert = methods.indexOf('POST /v1/vpgs/:id/checkpoints');
    expect(methods.slice(insert, insert + 2)).toEqual(['POST /v1/vpgs/:id/checkpoints', 'GET /v1/tasks/:id']);
    const cp = lab.zvm.state.listedCheckpoints(res.checkpoints[0]!.vpg_id).find((c) => c.id === res.checkpoints[0]!.checkpoint_id)!;
    const after = calls.slice(insert);
    const listings = after.filter((c) => c.method === 'GET /v1/vpgs/:id/checkpoints');
    // Seen within one interval of being listed: exactly one listing at or after the moment it was listed.
    expect(listings.filter((c) => c.at >= cp.visibleAt)).toHaveLength(1);
    // The interval is honoured (no busy polling), and the listing wait took about delay / interval polls.
    for (let i = 1; i < listings.length; i++) expect(listings[i]!.at - listings[i - 1]!.at).toBeGreaterThanOrEqual(POLL_MS - 5);
    expect(listings.length).toBeLessThanOrEqual(Math.ceil(LISTING_DELAY_MS / POLL_MS) + 2);
    // The task route is not polled any more once the task is done.
    const lastTask = after.findLastIndex((c) => c.method === 'GET /v1/tasks/:id');
    expect(after.findIndex((c) => c.method === 'GET /v1/vpgs/:id/checkpoints')).toBeGreaterThan(lastTask);
  });
});
