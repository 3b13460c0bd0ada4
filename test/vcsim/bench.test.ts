// Measures listing 2,000 VMs from vcsim with our client (a number for the report, with a loose
// bound so a pathological slowdown fails). vcsim builds the model on tmpfs in a few seconds.

import { expect, it } from 'vitest';
import { VsphereClient } from '../../src/vsphere/client.js';
import { VM_LIST_PATHS } from '../../src/vsphere/vms.js';
import { startVcsim } from '../support/vcsim.js';

it('lists 2,000 VMs from vcsim', async () => {
  const sim = await startVcsim({ vms: 1000, hosts: 3 }); // 1000 per pool x (cluster + standalone host)
  const client = new VsphereClient(sim.target('bench'), { secrets: sim.secrets(), keepaliveMs: 0 });
  try {
    await client.connect();
    await client.listVms(); // warm-up: JIT, sockets
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const rows = await client.listVms();
      times.push(performance.now() - t0);
      expect(rows).toHaveLength(2000);
    }
    times.sort((a, b) => a - b);
    const median = times[2]!;
    console.log(`listVms(2000 VMs, up to ${VM_LIST_PATHS.length} properties each from VM_LIST_PATHS) against vcsim: median ${median.toFixed(0)} ms, runs ${times.map((t) => t.toFixed(0)).join('/')}`);
    expect(median).toBeLessThan(5_000);
  } finally {
    await client.close();
    await sim.stop();
  }
}, 180_000);
