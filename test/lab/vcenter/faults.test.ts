import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVcenterHandle } from '../../../src/lab/vcenter/testing/index.js';
import type { SoapTestClient } from './soap-client.js';
import { startVc } from './lab-fixture.js';

const TIME: [string, string] = ['ServiceInstance', 'ServiceInstance'];

describe('lab vCenter: network fault knobs', () => {
  let vc: TestVcenterHandle;
  let client: SoapTestClient;

  beforeAll(async () => {
    ({ vc, client } = await startVc());
  });
  afterAll(async () => {
    await client.close();
    await vc.close();
  });

  it('delays one method and leaves others alone', async () => {
    vc.faults.delay('CurrentTime', 200);
    const t = Date.now();
    await client.call('CurrentTime', TIME);
    expect(Date.now() - t).toBeGreaterThanOrEqual(190);
    // The other method is not held: sent after the delayed one, it is answered first. An order,
    // not a duration, so a loaded machine cannot make it fail.
    const order: string[] = [];
    const delayed = client.call('CurrentTime', TIME).then(() => order.push('CurrentTime'));
    const other = client.call('SessionIsActive', ['SessionManager', 'SessionManager'], '<sessionID>x</sessionID><userName>y</userName>')
      .then(() => order.push('SessionIsActive'));
    await Promise.all([delayed, other]);
    expect(order).toEqual(['SessionIsActive', 'CurrentTime']);
    await vc.faults.reset();
  });

  it('hangs a method: no answer, then the connection drops', async () => {
    vc.faults.hang({ method: 'CurrentTime' }, 150);
    const t = Date.now();
    await expect(client.call('CurrentTime', TIME)).rejects.toThrow();
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    await vc.faults.reset();
    expect((await client.call('CurrentTime', TIME)).status).toBe(200);
  });

  it('goes unreachable and comes back on the same port', async () => {
    await vc.faults.unreachable();
    await expect(client.call('CurrentTime', TIME)).rejects.toThrow();
    await vc.faults.reset();
    expect((await client.call('CurrentTime', TIME)).status).toBe(200);
  });

  it('sets a VM connection state that vCenter then enforces', async () => {
    vc.faults.setConnectionState('vm-103', 'inaccessible');
    const r = await client.call('PowerOnVM_Task', ['VirtualMachine', 'vm-103']);
    expect(r.fault?.type).toBe('InvalidState');
    vc.faults.setConnectionState('vm-103', 'connected');
    expect((await client.call('PowerOnVM_Task', ['VirtualMachine', 'vm-103'])).status).toBe(200);
  });
});
