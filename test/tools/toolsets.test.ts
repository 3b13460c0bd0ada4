// Toolsets: which tools a selection serves, through a real MCP client against the lab (and the
// spawned binary for the --toolsets flag). Discovery is in every selection, the lifecycle tools
// come with any two-phase tool, and a bad set name stops startup listing the valid ones.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';
import { labTools } from '../../src/lab/lab-tools.js';
import { GuestFileSystems } from '../../src/lab/guest-files.js';
import { DEFAULT_TOOLSETS, TOOLSET_NAMES, parseToolsets, toolsetOf } from '../../src/tools/toolsets.js';
import { startLabHarness } from '../support/lab-harness.js';
import { tempDir } from '../support/harness.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const LIFECYCLE = ['list_pending_actions', 'confirm_action', 'cancel_action'];
/** With any change: a change may outlive its call, so it can be followed and stopped. */
// The change tools come with any change tool: follow, stop, undo (undo_change brings the lifecycle).
const CHANGE_HANDLES = ['get_change', 'cancel_change', 'undo_change'];

async function served(toolsets: string | undefined): Promise<string[]> {
  const h = await startLabHarness({ env: toolsets === undefined ? { TOOLSETS: '' } : { TOOLSETS: toolsets } });
  try {
    return (await h.client.listTools()).tools.map((t) => t.name);
  } finally {
    await h.close();
  }
}

describe('toolsets', () => {
  it('puts every declared tool in a named set (its declaration\'s toolset)', () => {
    for (const t of [...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())]) {
      const set = toolsetOf(t);
      expect(set === 'discovery' || TOOLSET_NAMES.includes(set), t.name).toBe(true);
      expect(set, `${t.name} is our own tool, not a proxied one`).not.toBe('downstream');
    }
  });

  it('serves the default sets when TOOLSETS is unset: discovery, lifecycle, no catalog edits or diagnostics', async () => {
    const names = await served(undefined);
    expect(names).toContain('list_targets');
    for (const n of [...LIFECYCLE, 'list_vms', 'power_on_vm', 'zerto_guard_before_mutate', 'zerto_recover_file']) expect(names).toContain(n);
    // The lab's stand-ins for the advisory path are asked for by name (the gateway's guestfs is the default way).
    expect(names).not.toContain('lab_write_guest_file');
    // In --lab the destructive tools are enabled but their toolset is not chosen by default.
    for (const n of ['zerto_add_mutating_tool', 'get_events', 'get_vm_performance', 'get_host_details', 'delete_vm']) expect(names).not.toContain(n);
    expect(parseToolsets(undefined).sets).toEqual(new Set(DEFAULT_TOOLSETS));
    // Outside --lab, ENABLE_DESTRUCTIVE=true asks for the destructive tools: the default then serves them.
    expect(parseToolsets(undefined, true).sets).toEqual(new Set([...DEFAULT_TOOLSETS, 'vsphere_destructive']));
    expect(parseToolsets('default', true).sets).toEqual(new Set(DEFAULT_TOOLSETS));
  }, 60_000);

  it('serves only the chosen sets plus discovery; the lifecycle with a two-phase tool or any change (undo_change)', async () => {
    const reads = await served('vsphere_read');
    expect(reads).toEqual(['list_targets', 'list_vms', 'get_vm_details', 'list_hosts', 'list_clusters', 'list_datastores', 'list_snapshots']);
    const flr = await served('flr');
    expect(flr).toEqual(['list_targets', 'zerto_recover_file', 'zerto_list_flr_sessions', 'zerto_end_flr_session', ...LIFECYCLE, ...CHANGE_HANDLES]);
    const all = await served('all');
    expect(all.length).toBe(ALL_TOOLS.length + 2);
    // Every set of TOOLSETS is served in --lab but downstream, whose tools need servers behind this one.
    const setOf = new Map([...ALL_TOOLS, ...labTools(GuestFileSystems.fromTopology())].map((t) => [t.name, t.toolset]));
    const servedSets = new Set(all.map((n) => setOf.get(n)));
    expect(TOOLSET_NAMES.filter((id) => !servedSets.has(id))).toEqual(['downstream']);
    expect(await served('default,zerto_catalog,vsphere_destructive')).toEqual(expect.arrayContaining(['zerto_add_mutating_tool', 'delete_vm']));
  }, 60_000);

  it('names the toolset of a declared tool that is not served', async () => {
    const h = await startLabHarness({ env: { TOOLSETS: 'vsphere_read' } });
    try {
      await expect(h.client.callTool({ name: 'get_events', arguments: {} })).rejects.toMatchObject({
        code: -32602, message: expect.stringContaining("'get_events' is in toolset 'vsphere_monitor'"),
      });
    } finally {
      await h.close();
    }
  }, 60_000);

  it('--toolsets wins over TOOLSETS, and an unknown set stops startup listing the valid ones', async () => {
    const env = { PATH: process.env.PATH ?? '', TOOLSETS: 'all', AUDIT_LOG_PATH: `${tempDir('zr-ts-')}/audit.jsonl` };
    const child = spawn(process.execPath, [BIN, '--lab', '--toolsets', 'zerto'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":2')) child.stdin.end();
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    await new Promise((r) => child.on('exit', r));
    const list = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: { tools: Array<{ name: string }> } }).find((m) => m.id === 2)!;
    expect(list.result.tools.map((t) => t.name)).toEqual(['list_targets', 'zerto_find_protection', 'zerto_create_tagged_checkpoint', 'zerto_guard_before_mutate', ...LIFECYCLE, ...CHANGE_HANDLES]);

    const bad = await promisify(execFile)(process.execPath, [BIN, '--lab', '--toolsets=vsphere_reed'], { env }).then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(bad?.code).toBe(1);
    expect(bad?.stderr).toContain("unknown toolset 'vsphere_reed'");
    expect(bad?.stderr).toContain('valid: all, default, vsphere_read');
  }, 60_000);
});
