// Guest files put back after a gateway change, against the lab: the real filesystem MCP server
// behind the gateway (guestfs, and `fsall` with all its tools over the same guest folder), the
// bad change made through a real MCP client (the guard pins a checkpoint first), then the put-back
// called directly with the runtime's own services: FLR from the simulated ZVM at that checkpoint,
// written back through the same downstream server, read back and compared by sha256.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { parseAppConfig } from '../../src/config/app-config.js';
import { guestfsDownstream } from '../../src/lab/lab-mode.js';
import { journalFaults } from '../../src/lab/zvm/testing/faults.js';
import {
  guestFileDepsOf, planGuestFileRestore, putBackGuestFiles, type GuestPathTouched, type PinnedCheckpointRef,
} from '../../src/undo/guest-file-restore.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { startCallLogSink, testDownstream, type CallLogSink } from '../support/downstream.js';
import { callsSince, errorOf, mark, ok, ORIGINAL_CONF, vpgId, waitFor } from '../tools/zerto/support.js';

const SHELL_SERVER = fileURLToPath(new URL('../support/guest-shell-server.mjs', import.meta.url));

/** An ssh-style server (sees guest paths as they are), declared as config.json would: its own tool names, and a delete tool. */
const SHELL_TOKEN = 'shell-token-5b2e9d71';

function shellDownstream(guestFolder: string) {
  const { config, problems } = parseAppConfig({
    downstream: [{
      name: 'shell', command: process.execPath, args: [SHELL_SERVER], env: { GUEST_ROOT: guestFolder, SHELL_TOKEN: '${SHELL_TOKEN}' }, vm: 'app-01',
      undo_paths: { put: ['file'], rm: ['file'] },
      undo_tools: { write: { tool: 'put', path_arg: 'file', content_arg: 'text' }, read: { tool: 'get', path_arg: 'file' }, delete: { tool: 'rm', path_arg: 'file' } },
    }],
  }, 'config.json', { SHELL_TOKEN });
  expect(problems).toEqual([]);
  return { server: config!.downstream[0]!, secrets: config!.inlineCredentials };
}

// Changes allowed, and none without a pinned checkpoint: the put-back always has one to start from.
const POLICY = 'defaults: { approval: single, read: allow, mutate: allow, destructive: deny, checkpoint: required }\n';

let h: LabHarness;
let sink: CallLogSink;
let root: string;
const APP01_VM = { target: 'lab-vc1', name: 'app-01', moid: 'vm-101' };

beforeAll(async () => {
  sink = await startCallLogSink();
  h = await startLabHarness({
    zvmTaskMs: 50, taskMs: 20, policyYaml: POLICY, checkpointTimeoutMs: 5_000, guestfs: true, downstreamBackoffMs: 50,
    // The same guest folder through the filesystem server with every tool (move_file, create_directory).
    editConfig: (lab) => {
      const folder = lab.guestFolder!.root;
      lab.config.app.downstream.push({ ...guestfsDownstream(folder, null), name: 'fsall' });
      lab.config.app.downstream.push({ ...testDownstream('tsrv', { vm: 'app-01', sink }), guestFiles: { paths: { set_value: ['host'] } } });
      const shell = shellDownstream(folder);
      lab.config.app.downstream.push(shell.server);
      Object.assign(lab.config.app.inlineCredentials, shell.secrets);
    },
  });
  sink.attach(h.lab.callLog);
  root = h.lab.guestFolder!.root;
}, 120_000);
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

// Every test starts from app.conf as the lab ships it, on disk and in the guest the checkpoints see,
// and makes the change it puts back itself: no test reads what another left.
beforeEach(() => {
  writeFileSync(join(root, 'etc/app.conf'), ORIGINAL_CONF);
  h.lab.guests.sync();
});

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const onDisk = (guestPath: string) => readFileSync(join(root, guestPath), 'utf8');
const deps = () => guestFileDepsOf(h.runtime.built.services);
const signal = () => AbortSignal.timeout(60_000);

/** The shell server answers plain text (not JSON), so its call is checked here rather than by h.call. */
async function shellPut(file: string, text: string): Promise<void> {
  const res = await h.client.callTool({ name: 'shell__put', arguments: { file, text } });
  expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
}

/** The last change of `tool`: the guest paths its executing line holds, and the checkpoint pinned for it. */
function lastChange(tool: string): { paths: GuestPathTouched[]; checkpoint: PinnedCheckpointRef } {
  const lines = h.auditLines();
  const executing = lines.filter((l) => l.tool === tool && l.phase === 'executing').at(-1)!;
  const pinned = lines.find((l) => l.id === executing.id && l.phase === 'checkpointed')!;
  const detail = pinned.detail as { tag: string; checkpoints: PinnedCheckpointRef['checkpoints'] };
  return {
    paths: (executing.detail as { guest_paths: GuestPathTouched[] }).guest_paths,
    checkpoint: { status: 'checkpointed', change_id: String(executing.id), tag: detail.tag, checkpoints: detail.checkpoints },
  };
}

describe('the gateway records the guest paths a change touches', () => {
  it('write_file: the executing audit line carries guest_paths, mapped from the server\'s folder to the guest\'s /', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'listen_port = 0\n' }));
    const { paths } = lastChange('guestfs__write_file');
    expect(paths).toEqual([{ server: 'guestfs', tool: 'write_file', arg: 'path', path: '/etc/app.conf', vm: APP01_VM }]);
  });

  it('a missing declared path argument is refused before anything runs: nothing forwarded, no executing line', async () => {
    const before = mark(h);
    const linesBefore = h.auditLines().length;
    const e = errorOf(await h.call('tsrv__set_value', { key: 'k', value: 'v' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain("declares 'host' as a guest path");
    expect(e.message).toContain('Nothing was forwarded');
    expect(callsSince(h, before, 'downstream:tsrv', /^call /)).toHaveLength(0);
    expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/vpgs/:id/checkpoints')).toHaveLength(0);
    expect(h.auditLines().slice(linesBefore).some((l) => l.phase === 'executing')).toBe(false);
    // A path outside the folder the server sees as the guest's / is refused the same way.
    const outside = errorOf(await h.call('guestfs__write_file', { path: '/tmp/elsewhere.conf', content: 'x' }));
    expect(outside.code).toBe('invalid_input');
    expect(outside.message).toContain('config guest_root');
  });
});

describe('putBackGuestFiles', () => {
  it('write_file of an existing file: put back, sha256 equal to the checkpoint\'s file', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'listen_port = 0\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    expect(onDisk('etc/app.conf')).toBe('listen_port = 0\n');
    const plan = await planGuestFileRestore(paths, checkpoint, deps());
    expect(plan).toEqual([expect.objectContaining({ path: '/etc/app.conf', action: 'restore', possible: true })]);
    expect(plan[0]!.reason).toContain('guestfs has no delete tool');
    const before = mark(h);
    const running: unknown[] = [];
    const results = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal(), running: (w) => running.push(w) });
    expect(results).toEqual([{ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) }]);
    expect(onDisk('etc/app.conf')).toBe(ORIGINAL_CONF);
    // The change watcher is told the FLR session, so a crash or cancel can end it.
    expect(running).toEqual([{ kind: 'flr_session', site: 'lab-zvm', session_id: expect.any(String) }]);
    // One mount, always unmounted; and the put-back pinned no checkpoint of its own.
    expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/flrs')).toHaveLength(1);
    expect(callsSince(h, before, 'zvm:lab-zvm', 'DELETE /v1/flrs/:id')).toHaveLength(1);
    expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/vpgs/:id/checkpoints')).toHaveLength(0);
    expect(h.lab.zvms.get('lab-zvm')!.state.liveSessions()).toHaveLength(0);
  });

  it('edit_file: put back', async () => {
    ok(await h.call('guestfs__edit_file', { path: join(root, 'etc/app.conf'), edits: [{ oldText: 'log_level = info', newText: 'log_level = trace' }] }));
    expect(onDisk('etc/app.conf')).toContain('log_level = trace');
    const { paths, checkpoint } = lastChange('guestfs__edit_file');
    expect(paths.map((p) => [p.tool, p.path])).toEqual([['edit_file', '/etc/app.conf']]);
    const results = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(results).toEqual([{ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) }]);
    expect(onDisk('etc/app.conf')).toBe(ORIGINAL_CONF);
  });

  it('a file the change created: the filesystem server has no delete tool, so it is reported, not skipped', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/created.conf'), content: 'new\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    const results = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(results).toEqual([{
      path: '/etc/created.conf', status: 'not_possible',
      reason: 'it did not exist at the checkpoint (the change created it), and guestfs has no delete tool; remove /etc/created.conf by hand',
    }]);
    expect(onDisk('etc/created.conf')).toBe('new\n');
    rmSync(join(root, 'etc/created.conf'));
  });

  it('move_file: both paths put back (source restored, destination reported: it did not exist before)', async () => {
    ok(await h.call('fsall__move_file', { source: join(root, 'etc/app.conf'), destination: join(root, 'etc/app.conf.moved') }));
    const { paths, checkpoint } = lastChange('fsall__move_file');
    expect(paths.map((p) => [p.arg, p.path])).toEqual([['source', '/etc/app.conf'], ['destination', '/etc/app.conf.moved']]);
    const plan = await planGuestFileRestore(paths, checkpoint, deps());
    expect(plan.map((p) => [p.path, p.action, p.possible])).toEqual([['/etc/app.conf', 'restore', true], ['/etc/app.conf.moved', 'restore', true]]);
    const results = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(results[0]).toEqual({ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) });
    expect(results[1]).toMatchObject({ path: '/etc/app.conf.moved', status: 'not_possible', reason: expect.stringContaining('fsall has no delete tool') });
    expect(onDisk('etc/app.conf')).toBe(ORIGINAL_CONF);
    rmSync(join(root, 'etc/app.conf.moved'));
  });

  it('two files, one restore fails: one done, one failed, each with its reason', async () => {
    writeFileSync(join(root, 'etc/second.conf'), 'second = 1\n');
    h.lab.guests.sync();
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'broken = yes\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    // Something else made the second file a folder since: the filesystem server cannot write it.
    rmSync(join(root, 'etc/second.conf'));
    mkdirSync(join(root, 'etc/second.conf'));
    const both = [...paths, { ...paths[0]!, path: '/etc/second.conf' }];
    const results = await putBackGuestFiles(both, checkpoint, deps(), { signal: signal() });
    expect(results[0]).toEqual({ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) });
    expect(results[1]).toMatchObject({ path: '/etc/second.conf', status: 'failed', reason: expect.stringContaining("guestfs's write_file refused the write") });
    expect(onDisk('etc/app.conf')).toBe(ORIGINAL_CONF);
    rmSync(join(root, 'etc/second.conf'), { recursive: true });
  });

  it('a checkpoint that holds no such VM\'s pin, or a path the server cannot write: not_possible, said per path', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'pinned = no\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    const none = await putBackGuestFiles(paths, { ...checkpoint, status: 'not_protected', checkpoints: [] }, deps(), { signal: signal() });
    expect(none).toEqual([{ path: '/etc/app.conf', status: 'not_possible', reason: expect.stringContaining('no checkpoint was pinned for VM "app-01"') }]);
    const gone = await putBackGuestFiles([{ ...paths[0]!, server: 'nosuch' }], checkpoint, deps(), { signal: signal() });
    expect(gone[0]).toMatchObject({ status: 'not_possible', reason: expect.stringContaining('"nosuch" is not configured') });
  });

  it('a server that sees guest paths as they are, with its own tool names and a delete tool: written back, and a created file removed', async () => {
    await shellPut('/etc/app.conf', 'via shell\n');
    const written = lastChange('shell__put');
    expect(written.paths).toEqual([{ server: 'shell', tool: 'put', arg: 'file', path: '/etc/app.conf', vm: APP01_VM }]);
    expect(await putBackGuestFiles(written.paths, written.checkpoint, deps(), { signal: signal() }))
      .toEqual([{ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) }]);
    expect(onDisk('etc/app.conf')).toBe(ORIGINAL_CONF);

    await shellPut('/etc/shell-made.conf', 'made\n');
    const created = lastChange('shell__put');
    const plan = await planGuestFileRestore(created.paths, created.checkpoint, deps());
    expect(plan[0]!.reason).toContain("removed with shell's rm");
    expect(await putBackGuestFiles(created.paths, created.checkpoint, deps(), { signal: signal() }))
      .toEqual([{ path: '/etc/shell-made.conf', status: 'removed', reason: 'it did not exist at the checkpoint' }]);
    expect(() => onDisk('etc/shell-made.conf')).toThrow(/ENOENT/);
  });

  it('a downstream refusal quoting the server\'s secret: failed, the reason quotes it with the secret cut out', async () => {
    writeFileSync(join(root, 'etc/guarded.conf'), 'refuse-me = 1\n');
    h.lab.guests.sync();
    await shellPut('/etc/guarded.conf', 'changed\n');
    const { paths, checkpoint } = lastChange('shell__put');
    const [r] = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(r).toMatchObject({ path: '/etc/guarded.conf', status: 'failed', reason: expect.stringContaining("shell's put refused the write: \"refused by the guest (session token [REDACTED])\"") });
    expect(JSON.stringify(r)).not.toContain(SHELL_TOKEN);
  });

  it('create_directory of a new folder: the filesystem server cannot delete it, so it is reported', async () => {
    ok(await h.call('fsall__create_directory', { path: join(root, 'srv/made-by-change') }));
    const { paths, checkpoint } = lastChange('fsall__create_directory');
    const plan = await planGuestFileRestore(paths, checkpoint, deps());
    expect(plan).toEqual([expect.objectContaining({ path: '/srv/made-by-change', action: 'report', possible: false, reason: expect.stringContaining('fsall has no delete tool') })]);
    expect(await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() }))
      .toEqual([{ path: '/srv/made-by-change', status: 'not_possible', reason: expect.stringContaining('fsall has no delete tool; remove /srv/made-by-change by hand') }]);
  });

  it('binary content a text-only write tool cannot carry: not_possible, with the way out', async () => {
    writeFileSync(join(root, 'etc/blob.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0xff, 0xfe]));
    h.lab.guests.sync();
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/blob.bin'), content: 'text now\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    const [r] = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(r).toMatchObject({ path: '/etc/blob.bin', status: 'not_possible', reason: expect.stringContaining("binary (not UTF-8 text), and guestfs's write_file carries text only") });
    expect(r!.reason).toContain('zerto_recover_file');
    expect(onDisk('etc/blob.bin')).toBe('text now\n');
  });

  it('a cancelled put-back fails each path with the reason and leaves no FLR session mounted', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'broken again\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    const stop = new AbortController();
    stop.abort();
    const results = await putBackGuestFiles(paths, checkpoint, deps(), { signal: stop.signal });
    expect(results).toEqual([{ path: '/etc/app.conf', status: 'failed', reason: expect.stringContaining('the put-back was cancelled') }]);
    expect(h.lab.zvms.get('lab-zvm')!.state.liveSessions()).toHaveLength(0);
    expect(onDisk('etc/app.conf')).toBe('broken again\n');
    // The same call again, not cancelled, puts it back: nothing was left half done.
    expect(await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() })).toEqual([{ path: '/etc/app.conf', status: 'done', sha256: sha(ORIGINAL_CONF) }]);
  });

  it('a checkpoint that has left the journal: the plan says not possible, naming the journal\'s earliest point', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'late\n' }));
    const { paths, checkpoint } = lastChange('guestfs__write_file');
    const state = h.lab.zvms.get('lab-zvm')!.state;
    const pinnedAt = Date.parse(checkpoint.checkpoints[0]!.timestamp);
    // Both VPGs of app-01 re-sync; the journal holds only what comes after.
    const vpgs = [vpgId('vpg-app'), vpgId('vpg-app-critical')];
    for (const v of vpgs) journalFaults(state.journal).resync(v);
    await waitFor(() => vpgs.every((v) => state.listedCheckpoints(v).some((c) => c.at > pinnedAt)), 15_000);
    const plan = await planGuestFileRestore(paths, checkpoint, deps());
    expect(plan).toEqual([expect.objectContaining({ path: '/etc/app.conf', action: 'report', possible: false })]);
    expect(plan[0]!.reason).toMatch(/the checkpoint cannot be used: .*(no longer in the journal|rolled past it)/);
    const [r] = await putBackGuestFiles(paths, checkpoint, deps(), { signal: signal() });
    expect(r).toMatchObject({ status: 'failed', reason: expect.stringMatching(/could not be mounted or read: .*(no longer in the journal|rolled past it)/) });
    expect(onDisk('etc/app.conf')).toBe('late\n');
  });
});
