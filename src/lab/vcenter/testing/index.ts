// Test-only entry point of the simulated vCenter (not shipped: tsconfig.build leaves testing/ out):
// the same server `--lab` runs, plus the knobs tests turn (`faults`: hang, delay, fail a task, take
// the endpoint off the network) and the read-only `model` view. Tests import startLabVcenter from
// here; `withKnobs` adds the knobs to a handle started elsewhere (by startLab).

import { LAB_INTERNALS, startLabVcenter as startShipped, type LabVcenterHandle, type LabVcenterOptions } from '../index.js';
import { FaultKnobs, type LabVcenterFaults } from './fault-injection.js';
import { inspector, type LabVcenterModel } from './inspect.js';

export type { LabVcenterFaults, HangDuration } from './fault-injection.js';
export type { LabVcenterModel, LabVmView } from './inspect.js';
export type { LabVcenterOptions } from '../index.js';

export interface TestVcenterHandle extends LabVcenterHandle {
  model: LabVcenterModel;
  faults: LabVcenterFaults;
}

/** Installs the knobs on a running lab vCenter (once; the same handle object comes back). */
export function withKnobs(handle: LabVcenterHandle): TestVcenterHandle {
  const h = handle as TestVcenterHandle;
  if (h.faults) return h;
  const { lab, server, roundTrips } = handle[LAB_INTERNALS];
  const knobs = new FaultKnobs(lab);
  knobs.net = server;
  server.setPlanner(knobs);
  return Object.assign(h, { model: inspector(lab, roundTrips), faults: knobs });
}

export async function startLabVcenter(options: LabVcenterOptions): Promise<TestVcenterHandle> {
  return withKnobs(await startShipped(options));
}
