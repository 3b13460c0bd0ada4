// A restore in progress when the server shuts down must not leave its FLR session mounted: the
// runtime's shutdown unmounts every session this process opened, before the clients close.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startLabHarness } from '../../support/lab-harness.js';
import { ok, waitFor } from './support.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

it('runtime.shutdown() unmounts an FLR session that a confirmed restore still has mounted', async () => {
  const h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20 });
  const zvm = h.lab.zvms.get('lab-zvm')!;
  try {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'shutdown test', change_id: 'shutdown-1' }));
    const proposal = ok(await h.call('zerto_recover_file', { vm: 'app-01', path: '/etc/app.conf', tag: cp.tag }));
    const statePath = join(h.dir, 'zerto-rewind-flr-sessions.json');
    const recorded = (): string[] => (existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')).sessions.map((s: { session_id: string }) => s.session_id) : []);

    zvmFaults(zvm).slowTasks(5_000); // the mount hangs, so the restore is mid-flight at shutdown
    const confirming = h.call('confirm_action', { token: proposal.token }).catch((err: unknown) => err);
    // Recorded under its id once the ZVM's answer is in (until then, as the mount request).
    await waitFor(() => zvm.state.liveSessions().length === 1 && recorded().length === 1 && recorded()[0] === zvm.state.liveSessions()[0]!.id);
    const [session] = zvm.state.liveSessions();
    expect(recorded()).toEqual([session!.id]);
    zvmFaults(zvm).slowTasks(null); // the unmount itself is quick

    await h.runtime.shutdown();
    expect(zvm.state.liveSessions()).toHaveLength(0);
    expect(recorded()).toEqual([]);
    expect(h.lab.callLog.find('zvm:lab-zvm', 'DELETE /v1/flrs/:id').map((c) => c.subject)).toContain(session!.id);
    await confirming;
  } finally {
    await h.client.close().catch(() => undefined);
    await h.lab.stop();
  }
});
