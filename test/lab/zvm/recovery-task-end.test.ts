// The lab ZVM's clone and failover-test effects land when their task ends, whether or not a client
// polls the task: a timer looks at the task at its end time. A timer can fire while Date.now() is
// still short of that end (libuv schedules from a loop time read earlier, more so on a loaded
// machine); the effect must land all the same.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLab, type TestLab } from '../../../src/lab/testing/index.js';
import { tempDir } from '../../support/harness.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';

let lab: TestLab;
beforeAll(async () => {
  lab = await startLab({ stateDir: tempDir('zr-lab-recovery-'), env: {}, zvmTaskMs: 60, autoCheckpointMs: 0, fillerVms: 0 });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await lab?.stop();
});

async function until(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a recovery task nobody polls', () => {
  it('a failover test started and stopped at once ends, though the end timer fires before Date.now() reaches the end', async () => {
    const zvm = lab.zvms.get('lab-zvm')!;
    const recoveries = zvm.state.recoveries;
    const vpg = zvm.state.vpg(VPG_APP)!;
    const checkpoint = zvm.state.listedCheckpoints(VPG_APP).at(-1)!;
    recoveries.startTest(vpg, checkpoint, [], 'test');
    expect(recoveries.stopTest(VPG_APP, 'test')).toBeDefined();
    // From now on Date.now() runs 40 ms behind the timers armed above: each fires "early".
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() - 40);
    try {
      await until(() => !recoveries.tests.has(VPG_APP));
    } finally {
      vi.restoreAllMocks();
    }
    expect(recoveries.tests.has(VPG_APP)).toBe(false);
  });
});
