import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { FlrSessionRegistry } from '../../src/zerto/flr-sessions.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const APP01 = labVmIdentifier('lab-vc1', 'vm-101');

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

async function mount(l: LabHandle): Promise<string> {
  const cps = await l.client.listCheckpoints(VPG_APP);
  return l.client.mountFlr({ vpgId: VPG_APP, vmId: APP01, checkpointId: cps.at(-1)!.CheckpointIdentifier });
}

function registry(l: LabHandle, alive: (pid: number) => boolean = () => true): FlrSessionRegistry {
  return new FlrSessionRegistry({ path: join(l.tmp, 'state', 'flr-sessions.json'), clients: new Map([['lab-zvm', l.client]]), isProcessAlive: alive });
}

const entry = (id: string) => ({ site: 'lab-zvm', session_id: id, vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: VPG_APP, checkpoint_id: '1' });

describe('FLR session registry', () => {
  it('finds a session a crashed run left mounted, marks it orphaned, and ends it', async () => {
    lab = await startLab();
    const crashed = registry(lab);
    const id = await mount(lab);
    await crashed.recordOpened(entry(id));
    // A new server process: the old one's pid is gone.
    const fresh = registry(lab, () => false);
    const left = await fresh.reportLeftovers();
    expect(left.map((s) => s.session_id)).toEqual([id]);
    const listed = await fresh.list();
    expect(listed.errors).toEqual([]);
    expect(listed.sessions).toHaveLength(1);
    expect(listed.sessions[0]).toMatchObject({ session_id: id, opened_by_this_server: true, orphaned: true, vm: 'app-01', vpg_id: VPG_APP });
    const ended = await fresh.end({ site: 'lab-zvm', sessionId: id });
    expect(ended).toMatchObject({ status: 'unmounted', opened_by_this_server: true });
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
    expect(await fresh.leftovers()).toEqual([]);
  });

  it('does not call a live process\'s session orphaned', async () => {
    lab = await startLab();
    const other = registry(lab);
    const id = await mount(lab);
    await other.recordOpened(entry(id));
    // Another server process (a different pid) that is still running owns it.
    const file = join(lab.tmp, 'state', 'flr-sessions.json');
    const state = JSON.parse(await readFile(file, 'utf8'));
    state.sessions[0].owner.pid = process.pid + 100_000;
    await writeFile(file, JSON.stringify(state));
    const mine = registry(lab, (pid) => pid === process.pid + 100_000);
    const sessions = (await mine.list()).sessions;
    expect(sessions[0]).toMatchObject({ opened_by_this_server: true, orphaned: false });
  });

  it('will not end a session it did not open unless forced', async () => {
    lab = await startLab();
    const id = await mount(lab);
    const reg = registry(lab);
    expect((await reg.list()).sessions[0]).toMatchObject({ session_id: id, opened_by_this_server: false, orphaned: false });
    const err = await thrown(() => reg.end({ site: 'lab-zvm', sessionId: id }));
    expect(err.code).toBe('invalid_input');
    expect(err.hint).toMatch(/force/);
    expect(lab.zvm.state.liveSessions()).toHaveLength(1);
    expect((await reg.end({ site: 'lab-zvm', sessionId: id, force: true })).status).toBe('unmounted');
    expect((await thrown(() => reg.end({ site: 'lab-zvm', sessionId: 'nope' }))).code).toBe('not_found');
  });

  it('unmounts every session this process opened at shutdown, and only those', async () => {
    lab = await startLab();
    const reg = registry(lab);
    const a = await mount(lab);
    const b = await mount(lab);
    const foreign = await mount(lab);
    await reg.recordOpened(entry(a));
    await reg.recordOpened(entry(b));
    const reports = await reg.unmountAllOpened();
    expect(reports.map((r) => r.session_id).sort()).toEqual([a, b].sort());
    expect(reports.every((r) => r.status === 'unmounted')).toBe(true);
    expect(lab.zvm.state.liveSessions().map((s) => s.id)).toEqual([foreign]);
  });

  it('keeps the record when the unmount fails, so the session can still be found', async () => {
    lab = await startLab();
    const reg = registry(lab);
    const id = await mount(lab);
    await reg.recordOpened(entry(id));
    zvmFaults(lab.zvm).failRoute('DELETE /v1/flrs/:id', 1, 500);
    const report = await reg.unmount('lab-zvm', id, { waitMs: 2000 });
    expect(report.status).toBe('failed');
    expect((await reg.list()).sessions[0]).toMatchObject({ session_id: id, opened_by_this_server: true });
  });

  it('writes the state file atomically and survives a corrupt one', async () => {
    lab = await startLab();
    const reg = registry(lab);
    await Promise.all(['s1', 's2', 's3'].map((id) => reg.recordOpened(entry(id))));
    const dir = join(lab.tmp, 'state');
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const parsed = JSON.parse(await readFile(join(dir, 'flr-sessions.json'), 'utf8'));
    expect(parsed.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual(['s1', 's2', 's3']);
    await writeFile(join(dir, 'flr-sessions.json'), '{not json');
    expect(await reg.leftovers()).toEqual([]);
    await reg.recordOpened(entry('s4'));
    expect(JSON.parse(await readFile(join(dir, 'flr-sessions.json'), 'utf8')).sessions).toHaveLength(1);
  });

  it('reports a site that cannot be listed instead of failing the whole listing', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute('GET /v1/flrs', 3, 503);
    const res = await registry(lab).list();
    expect(res.sessions).toEqual([]);
    expect(res.errors[0]).toMatchObject({ site: 'lab-zvm', code: 'zerto_error' });
  });
});
