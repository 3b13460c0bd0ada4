// Clients nobody here wrote, against the simulated vCenter and against vcsim as the reference:
// govmomi (the flows behind 57 govc commands) and pyVmomi (version negotiation, WaitForTask on
// every task type, event and task history). Every flow must succeed against the lab; the vcsim
// run is printed next to it so a difference between the two shows in the test output.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { startLabVcenter, type TestVcenterHandle } from '../../src/lab/vcenter/testing/index.js';
import { startVcsim, type Vcsim } from '../support/vcsim.js';
import { buildGovmomiClient, checkPyvmomi, differences, runGovmomi, runPyvmomi, type Endpoint, type FlowResult } from './clients.js';

let lab: TestVcenterHandle;
let labPy: TestVcenterHandle;
let vcsim: Vcsim;
let vcsimPy: Vcsim;
const results: Record<'govmomi' | 'pyvmomi', { lab: FlowResult[]; vcsim: FlowResult[] }> = {
  govmomi: { lab: [], vcsim: [] },
  pyvmomi: { lab: [], vcsim: [] },
};

function labEndpoint(h: TestVcenterHandle): Endpoint {
  return { host: '127.0.0.1', port: h.port, user: LAB_CREDENTIALS.user, password: LAB_CREDENTIALS.password, scheme: 'https' };
}

function vcsimEndpoint(v: Vcsim): Endpoint {
  return { host: '127.0.0.1', port: Number(v.url.port), user: v.user, password: v.password, scheme: v.url.protocol.replace(':', '') };
}

beforeAll(async () => {
  const binary = buildGovmomiClient();
  checkPyvmomi();
  // Each client gets fresh simulators: both programs change the VMs they work on.
  [lab, labPy, vcsim, vcsimPy] = await Promise.all([
    startLabVcenter({ vcenter: LAB_VCENTERS[0]!, credentials: { ...LAB_CREDENTIALS } }),
    startLabVcenter({ vcenter: LAB_VCENTERS[0]!, credentials: { ...LAB_CREDENTIALS } }),
    startVcsim({ vms: 2, hosts: 3 }),
    startVcsim({ vms: 2, hosts: 3, tls: true }),
  ]);
  const [gl, gv, pl, pv] = await Promise.all([
    runGovmomi(binary, labEndpoint(lab)), runGovmomi(binary, vcsimEndpoint(vcsim)),
    runPyvmomi(labEndpoint(labPy)), runPyvmomi(vcsimEndpoint(vcsimPy)),
  ]);
  results.govmomi = { lab: gl, vcsim: gv };
  results.pyvmomi = { lab: pl, vcsim: pv };
  console.log(differences('govmomi (govc flows)', gl, gv));
  console.log(differences('pyVmomi', pl, pv));
}, 300_000);

afterAll(async () => {
  await Promise.all([lab?.close(), labPy?.close(), vcsim?.stop(), vcsimPy?.stop()]);
});

describe('govmomi: the flows behind 57 govc commands', () => {
  it('ran all 57 flows against both servers', () => {
    expect(results.govmomi.lab).toHaveLength(57);
    expect(results.govmomi.vcsim).toHaveLength(57);
  });

  it('every flow succeeds against the lab', () => {
    expect(results.govmomi.lab.filter((r) => !r.ok)).toEqual([]);
  });

  it('reports no task as failed whose change was applied (each mutating flow re-reads the state)', () => {
    const mutating = results.govmomi.lab.filter((r) => /^(snapshot\.(create|revert|remove)|vm\.(power|change|migrate|clone|destroy)|datastore\.ls)/.test(r.flow));
    expect(mutating).toHaveLength(15);
    expect(mutating.every((r) => r.ok)).toBe(true);
  });
});

describe('pyVmomi', () => {
  it('negotiates 6.5 and the newest version it knows, and parses summary on both', () => {
    const six5 = results.pyvmomi.lab.find((r) => r.flow === 'summary on a 6.5 session');
    const newest = results.pyvmomi.lab.find((r) => r.flow === 'summary on the newest session');
    expect(six5).toMatchObject({ ok: true });
    expect(six5?.detail).toMatch(/urn:vim25\/6\.5"?, 0 with hwVersion/);
    expect(newest).toMatchObject({ ok: true });
    expect(newest?.detail).toMatch(/urn:vim25\/6\.7\.1/);
  });

  it('every flow succeeds against the lab', () => {
    expect(results.pyvmomi.lab).toHaveLength(19);
    expect(results.pyvmomi.lab.filter((r) => !r.ok)).toEqual([]);
  });

  it('ran the same flows against vcsim', () => {
    expect(results.pyvmomi.vcsim.length).toBeGreaterThan(0);
  });
});
