// The mutating-tool catalog through MCP: built-in entries stay, malformed additions are refused,
// added entries live in a state file beside the audit log and survive a restart, and the
// operator's config.json is never written (proven on a server built from a real config.json).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { connectValidatingClient } from '../../support/mcp-client.js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../../src/config/load.js';
import { envSecretSource } from '../../../src/core/secrets.js';
import { MutatingCatalog } from '../../../src/core/catalog.js';
import { FileCatalogStore } from '../../../src/state/files/catalog-file-store.js';
import { LAB_CA_FILE } from '../../../src/lab/lab-mode.js';
import { GuestFileSystems } from '../../../src/lab/guest-files.js';
import { LAB_CREDENTIALS, LAB_ZERTO_SITES } from '../../../src/lab/topology.js';
import { startLabZvm, type LabZvm } from '../../../src/lab/zvm/index.js';
import { startRuntime, type Runtime } from '../../../src/app/runtime.js';
import { callTool, silentLogger, tempDir, type CallResult } from '../../support/harness.js';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { errorOf, ok } from './support.js';

const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close().catch(() => undefined);
});

async function harness(dir?: string): Promise<LabHarness> {
  const h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20, ...(dir ? { dir } : {}) });
  open.push(h);
  return h;
}

function entries(r: CallResult): Array<Record<string, unknown>> {
  return ok(r).entries as Array<Record<string, unknown>>;
}

describe('zerto_list / add / remove_mutating_tool against the lab', () => {
  it('lists built-in entries, which cannot be removed; refuses malformed and duplicate additions', async () => {
    const h = await harness();
    const list = entries(await h.call('zerto_list_mutating_tools'));
    const byTool = new Map(list.map((e) => [e.tool, e]));
    expect(byTool.get('power_off_vm')).toMatchObject({ vm_arg: 'vm', source: 'built_in', removable: false });
    expect(byTool.get('lab_write_guest_file')).toMatchObject({ vm_arg: 'vm', source: 'built_in', removable: false });

    for (const tool of ['power_off_vm', 'lab_write_guest_file']) {
      const e = errorOf(await h.call('zerto_remove_mutating_tool', { tool }));
      expect(e.code).toBe('policy_denied');
      expect(e.message).toContain('cannot be removed');
    }
    expect(entries(await h.call('zerto_list_mutating_tools'))).toHaveLength(list.length);

    const noVmArg = errorOf(await h.call('zerto_add_mutating_tool', { tool: 'ssh/exec' }));
    expect(noVmArg.code).toBe('invalid_input');
    expect(noVmArg.message).toContain('vm_arg');
    for (const vm_arg of ['', 'hosts..name', '.hosts', 'hosts[0]', 'a b']) {
      const e = errorOf(await h.call('zerto_add_mutating_tool', { tool: 'ssh/exec', vm_arg }));
      expect(e.code, `vm_arg ${JSON.stringify(vm_arg)}`).toBe('invalid_input');
      expect(e.message).toContain('vm_arg');
    }
    const dup = errorOf(await h.call('zerto_add_mutating_tool', { tool: 'power_off_vm', vm_arg: 'name' }));
    expect(dup.code).toBe('invalid_input');
    expect(dup.message).toContain('already catalogued');
    expect(errorOf(await h.call('zerto_remove_mutating_tool', { tool: 'never/added' })).code).toBe('not_found');
    expect(entries(await h.call('zerto_list_mutating_tools'))).toHaveLength(list.length);
    // The catalog itself refuses an entry without vm_arg, whoever calls it.
    const catalog = h.runtime.built.services.ext.catalog!;
    await expect(catalog.add({ tool: 'x/y', vm_arg: '', platform: 'any', note: '' })).rejects.toThrow(/vm_arg/);
  });

  it('added entries survive a restart on the same state folder, guard after it, and only they can be removed', async () => {
    const first = await harness();
    const dir = first.dir;
    const added = ok(await first.call('zerto_add_mutating_tool', { tool: 'winrm/run_ps', vm_arg: 'host', platform: 'windows', note: 'PowerShell over WinRM' }));
    expect(added.entry).toMatchObject({ tool: 'winrm/run_ps', vm_arg: 'host', platform: 'windows', source: 'added', removable: true });
    const statePath = join(dir, 'zerto-rewind-catalog.json');
    expect(JSON.parse(readFileSync(statePath, 'utf8')).added).toEqual([{ tool: 'winrm/run_ps', vm_arg: 'host', platform: 'windows', note: 'PowerShell over WinRM' }]);
    await first.close();

    const second = await harness(dir);
    const after = entries(await second.call('zerto_list_mutating_tools')).find((e) => e.tool === 'winrm/run_ps');
    expect(after).toMatchObject({ source: 'added', removable: true, vm_arg: 'host' });
    const guarded = ok(await second.call('zerto_guard_before_mutate', { tool: 'winrm/run_ps', args: { host: 'win-app-01', script: 'Restart-Service app' } }));
    expect(guarded.guarded).toBe(true);
    expect(guarded.vms[0].checkpoints.map((c: any) => c.vpg)).toEqual(['vpg-windows']);

    ok(await second.call('zerto_remove_mutating_tool', { tool: 'winrm/run_ps' }));
    expect(entries(await second.call('zerto_list_mutating_tools')).some((e) => e.tool === 'winrm/run_ps')).toBe(false);
    expect(await new MutatingCatalog([], [], new FileCatalogStore(statePath)).list()).toEqual([]);
    expect(ok(await second.call('zerto_guard_before_mutate', { tool: 'winrm/run_ps', args: { host: 'win-app-01' } })).guarded).toBe(false);
  });
});

describe('a server built from a real config.json', () => {
  let zvm: LabZvm;
  let runtime: Runtime;
  let client: Client;

  it('keeps agent additions out of config.json, and config entries cannot be removed', async () => {
    const site = LAB_ZERTO_SITES.find((s) => s.name === 'lab-zvm')!;
    zvm = await startLabZvm({ site, guests: GuestFileSystems.fromTopology(), credentials: { ...LAB_CREDENTIALS }, taskDurationMs: 50 });
    open.push(zvm);
    const dir = tempDir('zr-config-');
    const configPath = join(dir, 'config.json');
    writeFileSync(configPath, `${JSON.stringify({
      sites: [{ name: 'lab-zvm', url: zvm.url, credential_env_prefix: 'LAB_ZVM', verify_tls: true, ca_file: LAB_CA_FILE, vcenter_targets: [] }],
      guard: { checkpoint_timeout_seconds: 30, poll_interval_ms: 100 },
      mutating_tools: [{ tool: 'ssh/exec', vm_arg: 'host', platform: 'linux', note: 'any shell command' }],
    }, null, 2)}\n`);
    const configBytes = readFileSync(configPath);
    const stateDir = join(dir, 'state');
    mkdirSync(stateDir);
    const env = { ZERTO_REWIND_CONFIG: configPath, AUDIT_LOG_PATH: join(stateDir, 'audit.jsonl'), TOOLSETS: 'zerto,zerto_catalog' };
    const { config, problems } = loadConfiguration(env, dir);
    expect(problems).toEqual([]);
    runtime = await startRuntime({
      config: config!, logger: silentLogger,
      secrets: envSecretSource({ ...env, LAB_ZVM_USER: LAB_CREDENTIALS.user, LAB_ZVM_PASSWORD: LAB_CREDENTIALS.password }),
    });
    open.push({ close: () => runtime.shutdown() });
    client = await connectValidatingClient(runtime.built.newSession(), 'config-test');
    open.push(client);
    const call = (name: string, args: Record<string, unknown> = {}): Promise<CallResult> => callTool(client, name, args);

    const listed = entries(await call('zerto_list_mutating_tools'));
    expect(listed.find((e) => e.tool === 'ssh/exec')).toMatchObject({ source: 'config', removable: false });
    const denied = errorOf(await call('zerto_remove_mutating_tool', { tool: 'ssh/exec' }));
    expect(denied.code).toBe('policy_denied');
    expect(denied.hint).toContain('config.json');

    ok(await call('zerto_add_mutating_tool', { tool: 'smb/write_file', vm_arg: 'server', platform: 'windows' }));
    ok(await call('zerto_remove_mutating_tool', { tool: 'smb/write_file' }));
    ok(await call('zerto_add_mutating_tool', { tool: 'ansible/run_playbook', vm_arg: 'hosts' }));
    // Zerto-only (no targets file): the guard still resolves by Zerto's VM name.
    const guarded = ok(await call('zerto_guard_before_mutate', { tool: 'ssh/exec', args: { host: 'app-01', command: 'sed -i ...' } }));
    expect(guarded.vms[0].checkpoints).toHaveLength(2);
    expect(guarded.vms[0].tag).toMatch(/^ai-[a-z2-7]{10} \S+ mcp:config-test \| ssh\/exec \| args=[0-9a-f]+ \| vm=app-01 \| /);

    expect(readFileSync(configPath).equals(configBytes)).toBe(true);
    const state = JSON.parse(readFileSync(join(stateDir, 'zerto-rewind-catalog.json'), 'utf8'));
    expect(state.added.map((e: { tool: string }) => e.tool)).toEqual(['ansible/run_playbook']);
    expect(existsSync(join(dir, 'zerto-rewind-catalog.json'))).toBe(false);
  });
});
