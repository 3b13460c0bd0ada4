// The shared vSphere client suite against our own simulated vCenter (src/lab/vcenter), which pages
// like vCenter (so paging and the round-trip scaling at 1,000 vs 10,000 VMs are proven here) and
// implements the task history collector.

import { describe } from 'vitest';
import { envSecretSource } from '../../src/core/secrets.js';
import { startLabVcenter } from '../../src/lab/vcenter/testing/index.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { defineClientSuite, defineRoundTripScaling, type SimFactory } from './client-suite.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;

export const labFactory: SimFactory = {
  name: 'lab vCenter',
  async start({ vms, instanceUuid }) {
    const base = LAB_VCENTERS[0]!;
    const fillerVms = Math.max(0, vms - base.vms.length);
    const lab = await startLabVcenter({
      vcenter: { ...base, instanceUuid, fillerVms },
      credentials: { ...LAB_CREDENTIALS },
      taskMs: 20,
    });
    const url = new URL(lab.url);
    return {
      target: (name, overrides) => ({
        name,
        host: url.hostname,
        port: Number(url.port),
        protocol: 'https',
        insecure: false,
        caFile: LAB_CA,
        credentialPrefix: 'LAB',
        tags: [],
        standaloneHost: false,
        ...overrides,
      }),
      secrets: envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password }),
      vmCount: base.vms.length + fillerVms,
      instanceUuid,
      expireSessions: async () => lab.faults.expireSessions(),
      hang: async (on) => {
        if (on) lab.faults.hang({}, 'forever');
        else await lab.faults.reset();
      },
      stop: () => lab.close(),
    };
  },
  capabilities: { paging: true, taskHistoryCollector: true },
};

defineClientSuite(labFactory);

describe('round trips against the lab vCenter', () => {
  defineRoundTripScaling(labFactory, 1_000, 10_000);
});
