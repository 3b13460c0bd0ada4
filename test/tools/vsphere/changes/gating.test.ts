// Capability gating of the change tools, over a real MCP client. Lab mode always enables the
// destructive tools (for the lab targets), so this builds the real server (buildServer) around
// VSPHERE_CHANGE_TOOLS with a vSphere target pool that is never contacted: listing tools needs
// no connection, and ENABLE_DESTRUCTIVE is the only thing that varies.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, TEST_TARGETS, type Harness } from '../../../support/harness.js';
import { VSPHERE_CHANGE_TOOLS } from '../../../../src/tools/vsphere/changes/all-changes.js';
import { TargetPool } from '../../../../src/vsphere/target-pool.js';
import { envSecretSource } from '../../../../src/core/secrets.js';

const MUTATING = ['power_on_vm', 'power_off_vm', 'suspend_vm', 'reset_vm', 'create_snapshot', 'reconfigure_vm', 'mount_iso', 'unmount_iso', 'migrate_vm', 'clone_vm'];
const DESTRUCTIVE = ['delete_snapshot', 'revert_snapshot', 'delete_vm', 'unregister_vm', 'remove_disk', 'bulk_vm_action'];
const LIFECYCLE = ['list_pending_actions', 'confirm_action', 'cancel_action'];
/** With any change: a change may outlive its call, so it can be followed and stopped. */
// The change tools come with any change tool: follow, stop, undo (undo_change brings the lifecycle).
const CHANGE_HANDLES = ['get_change', 'cancel_change', 'undo_change'];

let h: Harness | undefined;
let pool: TargetPool | undefined;
afterEach(async () => {
  await h?.close();
  await pool?.closeAll();
  h = undefined;
  pool = undefined;
});

async function listed(env: Record<string, string>, targets = TEST_TARGETS) {
  pool = new TargetPool(targets, { secrets: envSecretSource({}) });
  h = await startHarness({ tools: VSPHERE_CHANGE_TOOLS, env, targets, deps: { ext: { vsphere: pool } } });
  return (await h.client.listTools()).tools;
}

describe('capability gating of the change tools', () => {
  it('declares the tools in the documented order: mutating first, then destructive', () => {
    expect(VSPHERE_CHANGE_TOOLS.map((t) => t.name)).toEqual([...MUTATING, ...DESTRUCTIVE]);
    for (const t of VSPHERE_CHANGE_TOOLS) {
      expect(t.category).toBe(DESTRUCTIVE.includes(t.name) ? 'destructive' : 'mutate');
      expect(typeof t.idempotent).toBe('boolean');
      expect(t.input.shape.target).toBeDefined();
      expect(t.input.shape.override).toBeDefined();
    }
  });

  it('without ENABLE_DESTRUCTIVE every destructive tool is absent; the mutating ones are listed, with the lifecycle undo_change needs', async () => {
    const names = (await listed({})).map((t) => t.name);
    expect(names).toEqual([...MUTATING, ...LIFECYCLE, ...CHANGE_HANDLES]);
    for (const d of DESTRUCTIVE) expect(names).not.toContain(d);
    // An unserved tool is a JSON-RPC error (-32602) that says why this one is absent.
    await expect(h!.call('delete_vm', { target: 'dev-vc1', vm: 'web-1' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('ENABLE_DESTRUCTIVE=true') });
  });

  it('with ENABLE_DESTRUCTIVE=true they are listed with destructive annotations, plus the lifecycle tools', async () => {
    const tools = await listed({ ENABLE_DESTRUCTIVE: 'true' });
    expect(tools.map((t) => t.name)).toEqual([...MUTATING, ...DESTRUCTIVE, ...LIFECYCLE, ...CHANGE_HANDLES]);
    for (const t of tools.filter((x) => DESTRUCTIVE.includes(x.name))) {
      expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
      // The first call of a destructive tool answers with a proposal.
      expect(Object.keys((t.outputSchema as { properties: Record<string, unknown> }).properties)).toContain('token');
    }
    for (const t of tools.filter((x) => MUTATING.includes(x.name))) {
      expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
  });

  it('without vSphere targets (Zerto-only mode) none of them is registered', async () => {
    expect(await listed({ ENABLE_DESTRUCTIVE: 'true' }, [])).toEqual([]);
  });
});
