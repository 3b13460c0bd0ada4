// zerto_recover_file through a real MCP client for a VM in three VPGs (win-file-01: two
// replicating to lab-zvm-dr, sorting first, and vpg-windows, local): the proposal names the local
// VPG first and the others that follow; the confirmed restore moves on to a DR VPG at the DR site
// when the local mount is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../../src/lab/topology.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { callsSince, mark, ok } from './support.js';

const FILE01 = labVmIdentifier('lab-vc2', 'vm-202');
const PATH = 'C:\\share\\readme.txt';
let h: LabHarness;
let tag: string;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20 });
  await h.client.listTools();
  const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'win-file-01', action: 'edit readme', change_id: 'multi-tool-1' }));
  expect(cp.checkpoints.map((c: any) => c.vpg).sort()).toEqual(['vpg-files-archive', 'vpg-files-dr', 'vpg-windows']);
  tag = cp.tag;
  h.lab.guests.write(FILE01, PATH, 'broken\r\n');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function recover() {
  const proposal = ok(await h.call('zerto_recover_file', { vm: 'win-file-01', path: PATH, tag }));
  return { proposal, confirmed: ok(await h.call('confirm_action', { token: proposal.token })) };
}

describe('zerto_recover_file for a VM in three VPGs', () => {
  it('proposes the locally replicated VPG first, naming the VPGs that follow, and restores from it', async () => {
    const { proposal, confirmed } = await recover();
    const vpg = proposal.affected.find((a: any) => a.type === 'vpg');
    expect(vpg).toMatchObject({ name: 'vpg-windows', locally_replicated: true });
    expect(proposal.summary).toMatch(/the same tag on VPG .*vpg-files-archive.*vpg-files-dr/);
    expect(confirmed.state).toBe('executed');
    expect(confirmed.result).toMatchObject({ site: 'lab-zvm', vpg: { name: 'vpg-windows' }, content: 'file server\r\n' });
  });

  it('moves on to a DR VPG at the DR site when the local mount is refused at confirmation', async () => {
    const from = mark(h);
    const proposal = ok(await h.call('zerto_recover_file', { vm: 'win-file-01', path: PATH, tag }));
    zvmFaults(h.lab.zvms.get('lab-zvm')!).failRoute('POST /v1/flrs', 1, 400, 'Another FLR session is running for this VM');
    const confirmed = ok(await h.call('confirm_action', { token: proposal.token }));
    expect(confirmed.result).toMatchObject({ site: 'lab-zvm-dr', vpg: { name: 'vpg-files-archive' }, content: 'file server\r\n' });
    expect(callsSince(h, from, 'zvm:lab-zvm', 'POST /v1/flrs')).toHaveLength(1);
    expect(callsSince(h, from, 'zvm:lab-zvm-dr', 'POST /v1/flrs')).toHaveLength(1);
  });
});
