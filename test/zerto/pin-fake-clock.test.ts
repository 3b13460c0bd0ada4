// The pin's waits run on an injected clock and sleep: a checkpoint that is
// never listed times out after the whole 10-minute budget, walked on a fake clock, without the
// test waiting on the wall clock; every poll sleeps the poll interval it was given.
import { afterEach, describe, expect, it } from 'vitest';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('pinTaggedCheckpoint on a fake clock', () => {
  it('a never-listed checkpoint times out after the full budget of fake time, polling at pollMs', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).lateCheckpoint('never');
    let now = Date.now();
    const slept: number[] = [];
    const err = await thrown(() => pinTaggedCheckpoint(lab!.client, {
      agent: 'claude', action: 'edit', vm: 'app-01', vpgs: [VPG_APP], changeId: 'fake-clock-1',
      timeoutMs: 600_000, pollMs: 30_000,
      clock: () => now,
      sleep: async (ms) => { slept.push(ms); now += ms; },
    }));
    expect(err.code).toBe('checkpoint_timeout');
    expect(err.message).toContain('600 s');
    expect(slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(600_000 - 30_000);
    expect(slept.every((ms) => ms <= 30_000)).toBe(true);
  });
});
