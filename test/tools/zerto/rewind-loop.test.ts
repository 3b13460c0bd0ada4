// The loop the product exists for, through a real MCP client against the lab: pin a tagged
// checkpoint, make a bad change to a guest file, get the file back from the tag (two-phase).
// Also: finding protection (one VM, all VPGs, or a precise refusal), retries without duplicates,
// remote and public-cloud VPGs, FLR sessions.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteFlrRule } from '../../../src/lab/zvm/index.js';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import {
  allTagged, APP01, callsSince, errorOf, expectTag, guestText, journalTagged, mark, ok, ORIGINAL_CONF, ORIGINAL_INI, POST_CHECKPOINT, vpgId, WIN01,
} from './support.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20 });
  // Caches the advertised output schemas: from here on the client validates every result.
  await h.client.listTools();
});
afterAll(async () => {
  await h?.close();
});

async function recover(args: Record<string, unknown>) {
  const proposal = ok(await h.call('zerto_recover_file', args));
  const confirmed = await h.call('confirm_action', { token: proposal.token });
  return { proposal, confirmed };
}

describe('zerto_find_protection', () => {
  it('finds exactly one VM and all its VPGs, by name, FQDN or IP, with the vSphere target as policy target', async () => {
    const byName = ok(await h.call('zerto_find_protection', { vm: 'app-01' }));
    expect(byName.site).toBe('lab-zvm');
    expect(byName.vm).toMatchObject({ name: 'app-01', vm_identifier: APP01, target: 'lab-vc1', moid: 'vm-101' });
    expect(byName.vpgs.map((v: any) => v.name)).toEqual(['vpg-app', 'vpg-app-critical']);
    for (const v of byName.vpgs) {
      expect(v).toMatchObject({ site: 'lab-zvm', locally_replicated: true, flr_possible: true, public_cloud_protected: false });
      expect(v.protected_site.name).toBe('lab-zvm');
      expect(v.recovery_site.name).toBe('lab-zvm');
      expect(typeof v.status).toBe('string');
    }
    const byFqdn = ok(await h.call('zerto_find_protection', { vm: 'win-app-01.lab.local' }));
    expect(byFqdn).toMatchObject({ matched_by: 'hostname', vm: { name: 'win-app-01', vm_identifier: WIN01 } });
    expect(byFqdn.vpgs.map((v: any) => v.name)).toEqual(['vpg-windows']);
    const byIp = ok(await h.call('zerto_find_protection', { vm: '192.0.2.11' }));
    expect(byIp.vm.name).toBe('app-01');
    const call = h.auditLines().filter((l) => l.tool === 'zerto_find_protection' && l.phase === 'call');
    expect(call.at(-1)!.target).toBe('lab-vc1');
  });

  it('refuses an ambiguous name with its candidates, says when a VM is unprotected or unknown', async () => {
    const dup = errorOf(await h.call('zerto_find_protection', { vm: 'dup-01' }));
    expect(dup.code).toBe('ambiguous_name');
    const candidates = (dup.details!.candidates as Array<{ moid: string }>).map((c) => c.moid).sort();
    expect(candidates).toEqual(['vm-105', 'vm-106']);

    const web02 = errorOf(await h.call('zerto_find_protection', { vm: 'web-02' }));
    expect(web02.code).toBe('not_protected');
    expect(web02.message).toContain('web-02');

    const missing = errorOf(await h.call('zerto_find_protection', { vm: 'no-such-vm-99' }));
    expect(missing.code).toBe('not_found');
  });

  it('a VM listed by both sites (protected at one, recovered at the other) is one VM, not ambiguous', async () => {
    const az = ok(await h.call('zerto_find_protection', { vm: 'az-web-01' }));
    expect(az.site).toBe('lab-zca-azure');
    expect(az.vpgs).toHaveLength(1);
    expect(az.vpgs[0]).toMatchObject({ name: 'vpg-azure-web', public_cloud_protected: true, locally_replicated: false, flr_possible: false });
    expect(az.other_sites).toEqual([
      expect.objectContaining({ site: 'lab-zvm', code: 'not_protected' }), expect.objectContaining({ site: 'lab-zvm-dr', code: 'not_protected' }),
    ]);
  });
});

describe('the rewind loop: checkpoint -> bad change -> recover from the tag', () => {
  it('Linux: /etc/app.conf on app-01 comes back as it was, and nothing is written into the guest', async () => {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'edit /etc/app.conf', change_id: 'loop-linux' }));
    expectTag(cp.tag, { action: 'edit /etc/app.conf', vm: 'app-01', change: 'loop-linux' });
    expect(cp.checkpoints.map((c: any) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);

    // The agent's bad change, through the lab's guarded guest-write tool: the same change id but
    // another call (tool and arguments), so it is not a retry and gets its own checkpoint.
    const write = ok(await h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'listen_port = 0\n# broken by the agent\n', change_id: 'loop-linux' }));
    expect(write.checkpoint).toMatchObject({ status: 'checkpointed', reused: false });
    expect(write.checkpoint.tag).not.toBe(cp.tag);
    expect(guestText(h, APP01, '/etc/app.conf')).toContain('broken by the agent');

    const { proposal, confirmed } = await recover({ vm: 'app-01', path: '/etc/app.conf', tag: cp.tag });
    expect(proposal).toMatchObject({ state: 'pending', tool: 'zerto_recover_file', target: 'lab-vc1', checkpoint_vpgs: [] });
    expect(proposal.summary).toContain('/etc/app.conf');
    expect(proposal.summary).toContain('Nothing is written into the guest');
    const byType = Object.fromEntries(proposal.affected.map((a: any) => [a.type, a]));
    expect(byType.vm).toMatchObject({ name: 'app-01', moid: 'vm-101', vm_identifier: APP01 });
    expect(['vpg-app', 'vpg-app-critical']).toContain(byType.vpg.name);
    expect(byType.vpg.locally_replicated).toBe(true);
    expect(byType.checkpoint).toMatchObject({ tag: cp.tag });
    expect(cp.checkpoints.map((c: any) => c.checkpoint_id)).toContain(byType.checkpoint.checkpoint_id);
    expect(byType.checkpoint.timestamp).toMatch(/^\d{4}-/);
    expect(byType.guest_file).toMatchObject({ name: '/etc/app.conf', written_to_guest: false });

    const done = ok(confirmed);
    expect(done.state).toBe('executed');
    expect(done.result).toMatchObject({ delivered: 'inline', content: ORIGINAL_CONF, guest_path: '/etc/app.conf', unmount: { status: 'unmounted' } });
    expect(done.result.checkpoint.tag).toBe(cp.tag);
    expect(done.result.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(h.lab.zvms.get('lab-zvm')!.state.liveSessions()).toHaveLength(0);
    // Restoring hands the bytes back; the guest keeps the agent's version until someone writes it back.
    expect(guestText(h, APP01, '/etc/app.conf')).toContain('broken by the agent');
  });

  it('Windows: C:\\app\\app.ini on win-app-01 (named by FQDN) comes back as it was', async () => {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'win-app-01.lab.local', action: 'edit app.ini', change_id: 'loop-win' }));
    expectTag(cp.tag, { vm: 'win-app-01', change: 'loop-win' });
    ok(await h.call('lab_write_guest_file', { vm: 'win-app-01', path: 'C:\\app\\app.ini', content: '[server]\nport=1\n', change_id: 'loop-win' }));
    expect(guestText(h, WIN01, 'C:\\app\\app.ini')).toBe('[server]\nport=1\n');
    const { confirmed } = await recover({ vm: 'win-app-01', path: 'C:\\app\\app.ini', tag: cp.tag });
    expect(ok(confirmed).result).toMatchObject({ content: ORIGINAL_INI, partition: 'partition#1 NTFS', unmount: { status: 'unmounted' } });
  });
});

describe('zerto_create_tagged_checkpoint', () => {
  it('pins the same tag on both VPGs of app-01, reports progress, and a retry with the same change id adds nothing', async () => {
    const progress: string[] = [];
    const first = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'patch', change_id: 'retry-1', agent: 'claude-code' },
      { onprogress: (p) => progress.push(p.message ?? '') }));
    expectTag(first.tag, { agent: 'claude-code', action: 'patch', vm: 'app-01', change: 'retry-1' });
    expect(first.checkpoints).toHaveLength(2);
    expect(first.checkpoints.every((c: any) => c.reused === false)).toBe(true);
    expect(progress.length).toBeGreaterThan(0);
    for (const vpg of ['vpg-app', 'vpg-app-critical']) expect(journalTagged(h, vpg, first.tag)).toHaveLength(1);

    const before = mark(h);
    const again = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'patch', change_id: 'retry-1', agent: 'claude-code' }));
    expect(again.tag).toBe(first.tag);
    expect(again.checkpoints.every((c: any) => c.reused === true)).toBe(true);
    expect(again.checkpoints.map((c: any) => c.checkpoint_id).sort()).toEqual(first.checkpoints.map((c: any) => c.checkpoint_id).sort());
    expect(callsSince(h, before, 'zvm:lab-zvm', POST_CHECKPOINT)).toHaveLength(0);
    for (const vpg of ['vpg-app', 'vpg-app-critical']) expect(journalTagged(h, vpg, first.tag)).toHaveLength(1);
    const retries = allTagged(h).filter((c) => c.tag!.includes('change=retry-1'));
    expect(retries).toHaveLength(2);

    // The same change id for another step is not a retry: step 2 gets its own checkpoint, so
    // restoring "before step 2" cannot undo step 1 too.
    const step2 = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'patch step 2', change_id: 'retry-1', agent: 'claude-code' }));
    expect(step2.tag).not.toBe(first.tag);
    expect(step2.checkpoints.every((c: any) => c.reused === false)).toBe(true);
    expect(allTagged(h).filter((c) => c.tag!.includes('change=retry-1'))).toHaveLength(4);
  });

  it('defaults the change id to the audit id and the agent to the MCP client name; audits checkpointed with the tag', async () => {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'web-01', action: 'restart nginx' }));
    expect(cp.change_id).toBe(cp.audit_id);
    expectTag(cp.tag, { vm: 'web-01', change: cp.audit_id });
    const lines = h.auditLines().filter((l) => l.id === cp.audit_id);
    expect(lines.map((l) => l.phase)).toEqual(['executing', 'checkpointed', 'executed']);
    const checkpointed = lines.find((l) => l.phase === 'checkpointed')!;
    expect(checkpointed.target).toBe('lab-vc1');
    expect(checkpointed.detail).toMatchObject({ tag: cp.tag, checkpoints: [expect.objectContaining({ vpg: 'vpg-app', checkpoint_id: cp.checkpoints[0].checkpoint_id })] });
  });
});

describe('remote and public-cloud VPGs', () => {
  it('a remote VPG (erp-01): FLR runs at whichever of its two sites accepts it, and is refused naming both when neither does', async () => {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'erp-01', action: 'edit erp.conf', change_id: 'erp-1' }));
    expect(cp.checkpoints.map((c: any) => c.vpg)).toEqual(['vpg-erp-dr']);
    const args = { vm: 'erp-01', path: '/etc/erp/erp.conf', tag: cp.tag };
    const [main, dr] = [h.lab.zvms.get('lab-zvm')!, h.lab.zvms.get('lab-zvm-dr')!];
    const setRule = (rule: RemoteFlrRule) => [main, dr].forEach((z) => zvmFaults(z).remoteFlr(rule));
    try {
      // The lab default (7.x docs): only the recovery site mounts. The protected site is asked first and refuses.
      let before = mark(h);
      const atDr = ok((await recover(args)).confirmed).result;
      expect(atDr).toMatchObject({ site: 'lab-zvm-dr', content: 'tenant = acme\n', vpg: { name: 'vpg-erp-dr' } });
      // Asked when proposing and again before mounting: lab-zvm's CanMount said no, so only the DR site mounted.
      expect(callsSince(h, before, 'zvm:lab-zvm', 'GET /v1/vms/:id/pointsInTime')).toHaveLength(2);
      expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/flrs')).toHaveLength(0);
      expect(callsSince(h, before, 'zvm:lab-zvm-dr', 'POST /v1/flrs')).toHaveLength(1);
      expect(dr.state.liveSessions()).toHaveLength(0);

      // The 10.0 U6 Swagger's reading: the protected site mounts, so the DR site is never asked.
      setRule('protected-site');
      before = mark(h);
      expect(ok((await recover(args)).confirmed).result).toMatchObject({ site: 'lab-zvm', content: 'tenant = acme\n' });
      expect(callsSince(h, before, 'zvm:lab-zvm-dr', /flrs|pointsInTime/)).toHaveLength(0);

      setRule('none');
      before = mark(h);
      const pending = ok(await h.call('list_pending_actions')).proposals.length;
      // Refused at proposal time: no human is asked to approve a restore no ZVM will mount.
      const e = errorOf(await h.call('zerto_recover_file', args));
      expect(ok(await h.call('list_pending_actions')).proposals).toHaveLength(pending);
      expect(e.code).toBe('flr_failed');
      expect(e.message).toContain("'lab-zvm' (found at)");
      expect(e.message).toContain("'lab-zvm-dr' (recovery site)");
      expect((e.details!.tried as Array<{ site: string; outcome: string }>).map((t) => [t.site, t.outcome])).toEqual([['lab-zvm', 'refused'], ['lab-zvm-dr', 'refused']]);
      // CanMount said no at both: nothing was mounted anywhere.
      expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/flrs')).toHaveLength(0);
      expect(callsSince(h, before, 'zvm:lab-zvm-dr', 'POST /v1/flrs')).toHaveLength(0);
    } finally {
      setRule('recovery-site');
    }
  });

  it('a VPG protected in Azure (az-web-01): the ZVM\'s refusal of the tag is passed on, and FLR is not attempted, each with its reason', async () => {
    const before = mark(h);
    const cp = errorOf(await h.call('zerto_create_tagged_checkpoint', { vm: 'az-web-01', action: 'edit', change_id: 'az-1' }));
    expect(cp.code).toBe('checkpoint_failed');
    expect(cp.message).toMatch(/Zerto refused the tagged checkpoint on VPG "vpg-azure-web".*public cloud/);
    expect(callsSince(h, before, 'zvm:lab-zca-azure', POST_CHECKPOINT)).toHaveLength(1);
    expect(allTagged(h, 'lab-zca-azure')).toHaveLength(0);

    const flr = errorOf(await h.call('zerto_recover_file', { vm: 'az-web-01', path: '/etc/hosts', checkpoint_id: '40000' }));
    expect(flr.code).toBe('flr_failed');
    expect(flr.message).toMatch(/public cloud/);
    for (const site of ['lab-zvm', 'lab-zvm-dr', 'lab-zca-azure']) expect(callsSince(h, before, `zvm:${site}`, 'POST /v1/flrs')).toHaveLength(0);
  });
});

describe('FLR sessions', () => {
  it('a failed download still unmounts, and the error says so', async () => {
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'flr fail test', change_id: 'flr-fail' }));
    const zvm = h.lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).failDownload(10);
    try {
      const { confirmed } = await recover({ vm: 'app-01', path: '/etc/app.conf', tag: cp.tag });
      const e = errorOf(confirmed);
      expect(e.message).toMatch(/was unmounted/);
      expect((e.details!.unmount as { status: string }).status).toBe('unmounted');
    } finally {
      zvmFaults(zvm).reset();
    }
    expect(zvm.state.liveSessions()).toHaveLength(0);
    expect(ok(await h.call('zerto_list_flr_sessions')).sessions).toEqual([]);
  });

  it('lists sessions (mine, orphaned, someone else\'s) and ends them; someone else\'s only with force', async () => {
    const state = h.lab.zvms.get('lab-zvm')!.state;
    const checkpoint = state.listedCheckpoints(vpgId('vpg-app')).at(-1)!;
    const admins = state.mount(vpgId('vpg-app'), APP01, checkpoint, 'admin@lab');
    const crashed = state.mount(vpgId('vpg-app'), APP01, checkpoint, 'lab-admin');
    // A record left by an earlier server process that is gone.
    writeFileSync(join(h.dir, 'zerto-rewind-flr-sessions.json'), JSON.stringify({ version: 1, sessions: [{
      site: 'lab-zvm', session_id: crashed.id, vm: 'app-01', vm_identifier: APP01, vpg: 'vpg-app', vpg_id: vpgId('vpg-app'),
      checkpoint_id: checkpoint.id, opened_at: new Date().toISOString(), owner: { pid: 2 ** 22 + 12_345, instance: 'gone' },
    }] }));

    const listed = ok(await h.call('zerto_list_flr_sessions', { site: 'lab-zvm' }));
    const byId = new Map(listed.sessions.map((s: any) => [s.session_id, s]));
    expect(byId.get(admins.id)).toMatchObject({ site: 'lab-zvm', opened_by_this_server: false, orphaned: false, vm_identifier: APP01 });
    expect(byId.get(crashed.id)).toMatchObject({ opened_by_this_server: true, orphaned: true, vm: 'app-01' });

    expect(ok(await h.call('zerto_end_flr_session', { site: 'lab-zvm', session_id: crashed.id }))).toMatchObject({ status: 'unmounted', opened_by_this_server: true });
    const refused = errorOf(await h.call('zerto_end_flr_session', { site: 'lab-zvm', session_id: admins.id }));
    expect(refused.code).toBe('invalid_input');
    expect(refused.hint).toMatch(/force/);
    expect(ok(await h.call('zerto_end_flr_session', { site: 'lab-zvm', session_id: admins.id, force: true }))).toMatchObject({ status: 'unmounted', opened_by_this_server: false });
    expect(state.liveSessions()).toHaveLength(0);
    expect(errorOf(await h.call('zerto_end_flr_session', { site: 'no-such-site', session_id: 'x' })).code).toBe('not_found');
  });
});
