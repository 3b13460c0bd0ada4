// Test-only entry point of the whole lab (not shipped: tsconfig.build leaves testing/ out): startLab as
// `--lab` runs it, plus a call log every simulator records into and the vCenter test knobs. Tests
// import startLab from here; the product's `--lab` runs lab-mode.ts without either.

import { LabCallLog } from '../call-log.js';
import { startLab as startShipped, type LabOptions, type RunningLab } from '../lab-mode.js';
import { withKnobs, type TestVcenterHandle } from '../vcenter/testing/index.js';

export type { LabOptions } from '../lab-mode.js';

export interface TestLab extends Omit<RunningLab, 'callLog' | 'vcenters'> {
  callLog: LabCallLog;
  vcenters: Map<string, TestVcenterHandle>;
}

export async function startLab(opts: LabOptions = {}): Promise<TestLab> {
  const callLog = opts.callLog ?? new LabCallLog();
  const lab = await startShipped({ ...opts, callLog });
  for (const h of lab.vcenters.values()) withKnobs(h);
  return lab as TestLab;
}
