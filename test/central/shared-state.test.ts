// Central mode's remaining shared state, end to end on a real PostgreSQL with two server instances
// in HTTP mode and real MCP clients: catalog additions (added on A, guarded on B; a lost database
// fails the changes that depend on the catalog closed) and the FLR session registry (a session
// recorded by A is known to B; B sees it orphaned only once A is gone; a mount request a dead
// instance left is resolved by the next start), and an instance switched
// from files to central mode merges its state files into the database.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlrSessionRegistry } from '../../src/zerto/index.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { errorOf, tempDir } from '../support/harness.js';
import type { HttpMcpClient } from '../support/http-client.js';
import { ok, startCentral, type Central, type Instance } from './central-fixture.js';

const POLICY = `
defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: off }
`;

let central: Central;
let A: Instance;
let B: Instance;
let aliceA: HttpMcpClient;
let bobB: HttpMcpClient;

beforeAll(async () => {
  central = await startCentral({ policy: POLICY, dirPrefix: 'zr-shared-' });
  A = await central.startInstance();
  B = await central.startInstance();
  aliceA = await central.as('alice', A);
  bobB = await central.as('bob', B);
}, 120_000);

afterAll(async () => {
  await central?.close();
});

const flr = (i: Instance): FlrSessionRegistry => i.runtime.built.services.ext.zerto!.flrSessions;
/** Session ids in the shared registry, as any instance reads them. */
const recorded = async () => (await B.runtime.central!.flrSessions.read()).map((s) => s.session_id);
const added = async (c: HttpMcpClient) => (ok(await c.call('zerto_list_mutating_tools')).entries as Array<Record<string, unknown>>).filter((e) => e.source === 'added');

describe('catalog additions are shared', () => {
  it('a tool added on A is listed and guarded on B; a duplicate on B is refused; removed on B, A passes it unguarded', async () => {
    const entry = ok(await aliceA.call('zerto_add_mutating_tool', { tool: 'winrm/run_ps', vm_arg: 'host', platform: 'windows', note: 'PowerShell over WinRM' }));
    expect(entry.message).toContain('PostgreSQL');
    expect(await added(bobB)).toEqual([{ tool: 'winrm/run_ps', vm_arg: 'host', platform: 'windows', note: 'PowerShell over WinRM', source: 'added', removable: true }]);

    const guarded = ok(await bobB.call('zerto_guard_before_mutate', { tool: 'winrm/run_ps', args: { host: 'win-app-01', script: 'Restart-Service app' } }));
    expect(guarded).toMatchObject({ guarded: true, vm_arg: 'host' });
    expect((guarded.vms as Array<{ checkpoints: Array<{ vpg: string }> }>)[0]!.checkpoints.map((c) => c.vpg)).toEqual(['vpg-windows']);

    const dup = errorOf(await bobB.call('zerto_add_mutating_tool', { tool: 'winrm/run_ps', vm_arg: 'computer' }));
    expect(dup.code).toBe('invalid_input');
    expect(dup.message).toContain('already catalogued');

    ok(await bobB.call('zerto_remove_mutating_tool', { tool: 'winrm/run_ps' }));
    expect(await added(aliceA)).toEqual([]);
    expect(ok(await aliceA.call('zerto_guard_before_mutate', { tool: 'winrm/run_ps', args: { host: 'win-app-01' } })).guarded).toBe(false);
  });

  it('additions made on A and B at the same time are all kept', async () => {
    const tools = Array.from({ length: 10 }, (_, i) => `ssh/exec-${i}`);
    const results = await Promise.all(tools.map((tool, i) => (i % 2 ? bobB : aliceA).call('zerto_add_mutating_tool', { tool, vm_arg: 'host' })));
    for (const r of results) ok(r);
    expect((await added(bobB)).map((e) => e.tool).sort()).toEqual([...tools].sort());
    for (const tool of tools) ok(await aliceA.call('zerto_remove_mutating_tool', { tool }));
  });

  it('without the database, changes that depend on the catalog fail closed and reads are answered; back, the guard works again', async () => {
    ok(await aliceA.call('zerto_add_mutating_tool', { tool: 'ansible/run_playbook', vm_arg: 'hosts' }));
    central.pg.stop();
    try {
      // The guard cannot tell whether the tool is catalogued: it refuses rather than pass it unguarded.
      const guard = errorOf(await bobB.call('zerto_guard_before_mutate', { tool: 'ansible/run_playbook', args: { hosts: ['win-app-01'] } }));
      expect(guard.code).toBe('unavailable');
      expect(guard.hint).toMatch(/PostgreSQL|Retry/);
      const add = errorOf(await aliceA.call('zerto_add_mutating_tool', { tool: 'ssh/exec', vm_arg: 'host' }));
      expect(add.code).toBe('unavailable');
      expect((await bobB.call('list_vms', { target: 'lab-vc1' })).isError).toBe(false);
      // Listings of the shared state itself say so, rather than answer an incomplete list.
      for (const tool of ['zerto_list_mutating_tools', 'zerto_list_flr_sessions', 'list_pending_actions']) {
        expect(errorOf(await bobB.call(tool)).code, tool).toBe('unavailable');
      }
    } finally {
      central.pg.start();
    }
    const guarded = ok(await bobB.call('zerto_guard_before_mutate', { tool: 'ansible/run_playbook', args: { hosts: ['win-app-01'] } }));
    expect(guarded.guarded).toBe(true);
    expect((await added(aliceA)).map((e) => e.tool)).toEqual(['ansible/run_playbook']);
  });
});

describe('the FLR session registry is shared', () => {
  const session = (id: string) => ({ site: 'lab-zvm', session_id: id, vm: 'win-app-01', vm_identifier: 'vm-104', vpg: 'vpg-windows', vpg_id: 'vpg-3', checkpoint_id: 'cp-1' });

  const endedAtStartup = async (sessionId: string) => (await B.runtime.central!.db.query<{ phase: string }>(
    "SELECT phase FROM audit_log WHERE tool = 'zerto_end_flr_session' AND line LIKE $1 ORDER BY seq", [`%"session_id":"${sessionId}"%`])).rows.map((r) => r.phase);

  it("a live instance's session is left alone by a starting instance; once its heartbeat stops, it is an orphan that the next start ends", async () => {
    await flr(A).recordOpened(session('flr-live'));
    expect((await flr(B).leftovers()).map((s) => s.session_id)).not.toContain('flr-live');
    expect((await flr(A).leftovers()).map((s) => s.session_id)).not.toContain('flr-live');

    // C starts while A is alive (its startup cleanup runs: A is alive, so it finds nothing), records a
    // session of its own, and exits cleanly: it unmounts what it opened (the lab's ZVM has no such
    // session, so it is simply gone), forgets it for everyone, and takes its heartbeat row along.
    const C = await central.startInstance();
    await flr(C).recordOpened(session('flr-of-c'));
    expect((await flr(B).leftovers()).map((s) => s.session_id)).not.toContain('flr-of-c');
    const cInstance = flr(C).instance;
    await C.http.close();
    await C.runtime.shutdown();
    expect(await recorded()).toEqual(['flr-live']);
    expect(await endedAtStartup('flr-live')).toEqual([]);
    const db = B.runtime.central!.db;
    expect((await db.query('SELECT 1 FROM server_instances WHERE instance = $1', [cInstance])).rowCount).toBe(0);

    // A killed instance stops heartbeating: age A's row past the staleness window.
    await db.query("UPDATE server_instances SET seen_at = now() - interval '1 hour' WHERE instance = $1", [flr(A).instance]);
    expect(await flr(B).leftovers()).toEqual([expect.objectContaining({ session_id: 'flr-live', site: 'lab-zvm', owner: { pid: process.pid, instance: flr(A).instance } })]);
    // The next instance to start ends it, audited in the shared table, and it is gone for all.
    const E = await central.startInstance();
    // (A shutdown would cut the cleanup short and leave the orphan to the next start.)
    await E.runtime.startupCleanup;
    await E.http.close();
    await E.runtime.shutdown();
    expect(await endedAtStartup('flr-live')).toEqual(['executing', 'executed']);
    expect(await recorded()).toEqual([]);
  });

  it('a mount request an instance died with is resolved by the next start: the session it left is found and ended', async () => {
    const zvm = central.lab.zvms.get('lab-zvm')!;
    const client = B.runtime.built.services.ext.zerto!.sites.find((s) => s.config.name === 'lab-zvm')!.client;
    const vpgId = 'aaaaaaaa-0000-4000-8000-000000000001';
    const vmId = labVmIdentifier('lab-vc1', 'vm-101');
    const checkpointId = (await client.listCheckpoints(vpgId)).at(-1)!.CheckpointIdentifier;
    // C asks for a mount and dies before the answer: the ZVM mounted, C never learned the id.
    const C = await central.startInstance();
    await flr(C).mountRecorder({ vm: 'app-01', vm_identifier: vmId, vpg: 'vpg-app', vpg_id: vpgId, checkpoint_id: checkpointId }).requested('lab-zvm');
    const sessionId = await client.mountFlr({ vpgId, vmId, checkpointId });
    const db = B.runtime.central!.db;
    await db.query("UPDATE server_instances SET seen_at = now() - interval '1 hour' WHERE instance = $1", [flr(C).instance]);
    expect((await flr(B).leftovers()).map((s) => s.mount_requested)).toEqual([true]);

    const E = await central.startInstance();
    await E.runtime.startupCleanup;
    await E.http.close();
    await E.runtime.shutdown();
    expect(zvm.state.liveSessions().map((s) => s.id)).not.toContain(sessionId);
    expect(await endedAtStartup(sessionId)).toEqual(['executing', 'executed']);
    expect(await recorded()).toEqual([]);
    await C.http.close();
    await C.runtime.shutdown();
  });
});

describe('an instance switched from state files to central mode', () => {
  it('merges its catalog additions and FLR records into the database and sets the files aside', async () => {
    const dir = tempDir('zr-switch-');
    const catalogFile = join(dir, 'zerto-rewind-catalog.json');
    const flrFile = join(dir, 'zerto-rewind-flr-sessions.json');
    writeFileSync(catalogFile, JSON.stringify({ version: 1, added: [{ tool: 'smb/write_file', vm_arg: 'server', platform: 'windows', note: 'from the stdio days' }] }));
    const left = { site: 'lab-zvm', session_id: 'flr-from-stdio', vm: 'win-app-01', vm_identifier: 'vm-104', vpg: 'vpg-windows', vpg_id: 'vpg-3', checkpoint_id: 'cp-9', opened_at: '2026-11-30T10:00:00.000Z', owner: { pid: 999_999, instance: 'stdio-run-that-crashed' } };
    writeFileSync(flrFile, JSON.stringify({ version: 1, sessions: [left] }));

    const D = await central.startInstance({ stateDir: dir });
    expect(existsSync(catalogFile)).toBe(false);
    expect(existsSync(flrFile)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.imported-')).length).toBe(2);

    // Guarded on another instance, which never saw the file.
    const guarded = ok(await bobB.call('zerto_guard_before_mutate', { tool: 'smb/write_file', args: { server: 'win-app-01', path: 'C:/app/app.ini' } }));
    expect(guarded.guarded).toBe(true);

    // The crashed run's mount is an orphan in the shared registry: D's startup cleanup ends it,
    // audited in the shared table.
    await D.runtime.startupCleanup;
    await D.http.close();
    await D.runtime.shutdown();
    const ended = await B.runtime.central!.db.query<{ phase: string }>(
      "SELECT phase FROM audit_log WHERE tool = 'zerto_end_flr_session' AND line LIKE '%\"session_id\":\"flr-from-stdio\"%' ORDER BY seq");
    expect(ended.rows.map((r) => r.phase)).toEqual(['executing', 'executed']);
    expect(await recorded()).not.toContain('flr-from-stdio');
    // A restart on the same folder does not import again: a removal in the database sticks.
    ok(await bobB.call('zerto_remove_mutating_tool', { tool: 'smb/write_file' }));
    const E = await central.startInstance({ stateDir: dir });
    expect(await added(bobB)).not.toContainEqual(expect.objectContaining({ tool: 'smb/write_file' }));
    await E.http.close();
    await E.runtime.shutdown();
  });
});
