// The shared vSphere client suite against govmomi's vcsim: proves the SOAP client against
// VMware's own implementation of the protocol, not only against our lab simulator.

import { describe } from 'vitest';
import { defineClientSuite, defineRoundTripScaling, type SimFactory } from '../vsphere/client-suite.js';
import { startVcsim } from '../support/vcsim.js';

export const vcsimFactory: SimFactory = {
  name: 'vcsim',
  async start({ vms, instanceUuid }) {
    // vcsim creates `vms` per resource pool and per standalone host: one cluster + one host = 2.
    const sim = await startVcsim({ vms: Math.max(1, Math.ceil(vms / 2)), instanceUuid });
    return {
      target: (name, overrides) => sim.target(name, overrides),
      secrets: sim.secrets(),
      vmCount: sim.vmCount,
      instanceUuid,
      expireSessions: async () => {
        await sim.expireSessions();
      },
      hang: (on) => sim.hang(on),
      stop: () => sim.stop(),
    };
  },
  capabilities: { paging: false, taskHistoryCollector: false },
};

defineClientSuite(vcsimFactory);

describe('round trips against vcsim', () => {
  defineRoundTripScaling(vcsimFactory, 100, 600);
});
