// Starts a simulated vCenter for a test file and gives it a logged-in SOAP client.

import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../../src/lab/topology.js';
import { startLabVcenter, type TestVcenterHandle, type LabVcenterOptions } from '../../../src/lab/vcenter/testing/index.js';
import { SoapTestClient } from './soap-client.js';

export const VC1 = LAB_VCENTERS[0]!;

export async function startVc(extra: Partial<LabVcenterOptions> = {}): Promise<{ vc: TestVcenterHandle; client: SoapTestClient }> {
  const vc = await startLabVcenter({ vcenter: VC1, credentials: { ...LAB_CREDENTIALS }, taskMs: 80, ...extra });
  const client = new SoapTestClient(vc.url);
  const login = await client.login(LAB_CREDENTIALS.user, LAB_CREDENTIALS.password);
  if (login.status !== 200) throw new Error(`login failed: ${login.xml}`);
  return { vc, client };
}

export async function createView(client: SoapTestClient, type: string): Promise<string> {
  const r = await client.call('CreateContainerView', ['ViewManager', 'ViewManager'],
    `<container type="Folder">group-d1</container><type>${type}</type><recursive>true</recursive>`);
  return String((r.body.returnval as Array<Record<string, unknown>>)[0]!['#text']);
}

/** Waits until the lab vCenter has no queued or running task (a poll, not a fixed sleep). */
export async function settle(vc: TestVcenterHandle): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (!vc.model.tasks().some((t) => t.state === 'queued' || t.state === 'running')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('lab vCenter tasks did not finish in 5 s');
}
