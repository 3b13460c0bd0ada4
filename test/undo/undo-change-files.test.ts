// undo_change end to end for gateway changes: a bad write or edit through the real filesystem MCP
// server behind the gateway (the guard pins a checkpoint first), then undo_change through a real
// MCP client: the proposal lists each path, confirmed the file is as it was at the checkpoint
// (sha256), a created file is reported (the server has no delete tool), and the undo of the undo
// puts the bad version back from the undo's own checkpoint. The put-back's mechanics are
// test/undo/guest-file-restore.test.ts's subject.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { guestfsDownstream } from '../../src/lab/lab-mode.js';
import { ok, ORIGINAL_CONF } from '../tools/zerto/support.js';
import { proposeAndConfirm } from '../tools/vsphere/changes/support.js';

const POLICY = 'defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: required }\n';

let h: LabHarness;
let root: string;
beforeAll(async () => {
  h = await startLabHarness({
    zvmTaskMs: 50, taskMs: 20, policyYaml: POLICY, checkpointTimeoutMs: 5_000, guestfs: true, downstreamBackoffMs: 50,
    // The same guest folder through the filesystem server with every tool: move_file touches two paths.
    editConfig: (lab) => {
      lab.config.app.downstream.push({ ...guestfsDownstream(lab.guestFolder!.root, null), name: 'fsall' });
    },
  });
  await h.client.listTools();
  root = h.lab.guestFolder!.root;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

type Rec = Record<string, any>;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const conf = () => readFileSync(join(root, 'etc/app.conf'), 'utf8');

async function undo(changeId: string): Promise<{ proposal: Rec; result: Rec }> {
  const { proposal, confirm } = await proposeAndConfirm(h, 'undo_change', { change_id: changeId });
  const c = ok(confirm) as Rec;
  return { proposal, result: c.result as Rec };
}

describe('undo_change of gateway file changes', () => {
  it('write_file: the proposal names the path and the checkpoint; confirmed, the file equals the original (sha256); the undo of the undo puts the bad write back', async () => {
    expect(conf()).toBe(ORIGINAL_CONF);
    const w = ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'listen_port = 0\n' })) as Rec;
    expect(conf()).toBe('listen_port = 0\n');
    const changeId = h.auditLines().filter((l) => l.tool === 'guestfs__write_file' && l.phase === 'executing').at(-1)!.id as string;
    const executing = h.auditLines().find((l) => l.id === changeId && l.phase === 'executing') as Rec;
    expect(executing.detail.before.guest_paths).toEqual([expect.objectContaining({ path: '/etc/app.conf', server: 'guestfs' })]);
    expect(w).toBeDefined();

    const { proposal, result } = await undo(changeId);
    const items = (proposal.affected as Rec[]).filter((a) => a.type === 'undo_item');
    expect(items).toEqual([expect.objectContaining({ from: 'checkpoint', plan: 'run', name: expect.stringContaining('/etc/app.conf') })]);
    expect(result.items).toEqual([expect.objectContaining({ status: 'done', sha256: sha(ORIGINAL_CONF) })]);
    expect(conf()).toBe(ORIGINAL_CONF);

    const again = await undo(result.audit_id as string);
    expect(again.result.items).toEqual([expect.objectContaining({ status: 'done', sha256: sha('listen_port = 0\n') })]);
    expect(conf()).toBe('listen_port = 0\n');
    await undo(again.result.audit_id as string);
    expect(conf()).toBe(ORIGINAL_CONF);
  }, 120_000);

  it('edit_file: nothing in the guest changes on the proposal or when it is cancelled; confirmed, put back', async () => {
    ok(await h.call('guestfs__edit_file', { path: join(root, 'etc/app.conf'), edits: [{ oldText: 'log_level = info', newText: 'log_level = trace' }] }));
    expect(conf()).toContain('log_level = trace');
    const changeId = h.auditLines().filter((l) => l.tool === 'guestfs__edit_file' && l.phase === 'executing').at(-1)!.id as string;
    // The proposal alone changes nothing in the guest: declined (cancelled), the edit stays.
    const p = ok(await h.call('undo_change', { change_id: changeId })) as Rec;
    expect(p.state).toBe('pending');
    expect(conf()).toContain('log_level = trace');
    ok(await h.call('cancel_action', { token: p.token }));
    expect(conf()).toContain('log_level = trace');
    const { result } = await undo(changeId);
    expect(result.items[0]).toMatchObject({ status: 'done', sha256: sha(ORIGINAL_CONF) });
    expect(conf()).toBe(ORIGINAL_CONF);
  }, 120_000);

  it('a file the change created: reported as not possible (the server cannot delete), never skipped', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/created-by-agent.conf'), content: 'new\n' }));
    const changeId = h.auditLines().filter((l) => l.tool === 'guestfs__write_file' && l.phase === 'executing').at(-1)!.id as string;
    const { result } = await undo(changeId);
    expect(result.items).toEqual([expect.objectContaining({ status: 'not_possible', reason: expect.stringMatching(/did not exist at the checkpoint|remove/i) })]);
  }, 120_000);

  it('a change of two files where one put-back fails: one done, one failed; the retry runs what is not done', async () => {
    ok(await h.call('fsall__move_file', { source: join(root, 'etc/app.conf'), destination: join(root, 'etc/app.conf.moved') }));
    const changeId = h.auditLines().filter((l) => l.tool === 'fsall__move_file' && l.phase === 'executing').at(-1)!.id as string;
    // Something else made the source a folder since: the server cannot write the file back there.
    mkdirSync(join(root, 'etc/app.conf'));
    const first = await undo(changeId);
    const byPath = (r: Rec) => Object.fromEntries((r.items as Rec[]).map((i) => [i.id.split(':').at(-1), i.status]));
    expect(byPath(first.result)).toEqual({ '/etc/app.conf': 'failed', '/etc/app.conf.moved': 'not_possible' });
    expect(first.result.message).toMatch(/again: it runs only what is not done/);

    rmSync(join(root, 'etc/app.conf'), { recursive: true });
    const second = await undo(changeId);
    expect(byPath(second.result)['/etc/app.conf']).toBe('done');
    expect(conf()).toBe(ORIGINAL_CONF);
    rmSync(join(root, 'etc/app.conf.moved'), { force: true });
  }, 120_000);
});
