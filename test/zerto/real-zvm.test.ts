// What third-party clients and the 10.0 U6 Swagger say a real ZVM does differently from the
// first simulator (docs/zerto-notes.md), each through the real client over https against
// the simulated ZVM with the matching switch.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LAB_VCENTERS, labVmIdentifier } from '../../src/lab/topology.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { TOKEN_PATH } from '../../src/zerto/auth.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile, type RecoverProgress } from '../../src/zerto/recover-file.js';
import type { VmLocator } from '../../src/zerto/vm-locator.js';
import { labLocator, startLab, thrown, type LabHandle } from './support/lab.js';

const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
const TOKEN = `POST ${TOKEN_PATH}`;
const fast = { pollMs: 40 };

let lab: LabHandle | undefined;
let foreign: Server | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
  await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
  foreign = undefined;
});

async function pin(l: LabHandle, vm: string, change: string) {
  const found = await findProtection(l.client, vm, { locator: labLocator() });
  return pinTaggedCheckpoint(l.client, { vpgs: found.vpgs, agent: 'claude', action: 'edit config', vm, changeId: change, pollMs: 40, timeoutMs: 10_000 });
}

describe('task polling that does not lie', () => {
  it('a task route that refuses a valid token: one re-login, then the listed checkpoint decides', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).taskRouteRefusesToken();
    const res = await pin(lab, 'app-01', 'chg-401');
    expect(res.checkpoints.map((c) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    for (const c of res.checkpoints) expect(lab.zvm.state.listedCheckpoints(c.vpg_id).find((x) => x.id === c.checkpoint_id)?.tag).toBe(res.tag);
    // Logged in again (once per refused token, not once per poll) and did not keep hammering the task route.
    const logins = lab.callLog.find('zvm:lab-zvm', TOKEN).length;
    expect(logins).toBeGreaterThanOrEqual(2);
    expect(logins).toBeLessThanOrEqual(3);
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/tasks/:id').length).toBeLessThanOrEqual(4);
  });

  it('a 400 or a 5xx from the task route is decided by the listing too', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute('GET /v1/tasks/:id', 2, 400, 'Task identifier is not valid');
    expect((await pin(lab, 'web-01', 'chg-400')).checkpoints).toHaveLength(1);
    zvmFaults(lab.zvm).failRoute('GET /v1/tasks/:id', 10, 503);
    expect((await pin(lab, 'web-01', 'chg-503')).checkpoints).toHaveLength(1);
  });

  it('auth_failed only when the token endpoint itself refuses the credentials', async () => {
    lab = await startLab();
    await lab.client.login();
    zvmFaults(lab.zvm).taskRouteRefusesToken();
    zvmFaults(lab.zvm).failRoute(TOKEN, 50, 401, 'invalid_grant');
    const err = await thrown(() => pin(lab!, 'web-01', 'chg-creds'));
    expect(err.code).toBe('auth_failed');
    expect(err.message).toMatch(/refused the password login/);
  });
});

describe('FLR browse pages', () => {
  it.each([1, 0] as const)('finds a file on the last page of a large folder, reading every page (pages counted from %i)', async (pageBase) => {
    lab = await startLab();
    zvmFaults(lab.zvm).browsePaging(50, 50);
    zvmFaults(lab.zvm).browsePageBase(pageBase);
    for (let i = 0; i < 120; i++) lab.guests.write(APP01, `/etc/many/f-${String(i).padStart(3, '0')}.conf`, `n=${i}\n`);
    lab.guests.write(APP01, '/etc/many/zz-wanted.conf', 'found on page 3\n');
    const { tag } = await pin(lab, 'app-01', 'chg-pages');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/many/zz-wanted.conf', restoreDir: lab.tmp });
    expect(res.content).toBe('found on page 3\n');
    // 121 entries at 50 a page: three pages of that folder were read.
    expect(lab.callLog.find('zvm:lab-zvm', 'POST /v1/flrs/:id/browse').length).toBeGreaterThanOrEqual(3);
  });

  it('lists partitions on a ZVM that counts pages from 0 (a client counting from 1 would see none)', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).browsePageBase(0);
    const { tag } = await pin(lab, 'app-01', 'chg-base0');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.partition).toBe('partition#1 Ext4');
  });

  it('reads on from page 1 when a ZVM refuses page 0', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute('POST /v1/flrs/:id/browse', 1, 400, 'pageNumber must be at least 1');
    const { tag } = await pin(lab, 'app-01', 'chg-refuse0');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.content).toContain('listen_port');
  });
});

describe('download links', () => {
  it('an absolute link naming another host is fetched from the configured origin; the other host gets nothing', async () => {
    lab = await startLab();
    const seen: IncomingHttpHeaders[] = [];
    foreign = createServer((req, res) => {
      seen.push(req.headers);
      res.end('not the file');
    });
    await new Promise<void>((resolve) => foreign!.listen(0, '127.0.0.1', () => resolve()));
    zvmFaults(lab.zvm).downloadLinksOn(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}`);
    const { tag } = await pin(lab, 'app-01', 'chg-link');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.content).toBe('listen_port = 8080\nmax_connections = 200\nlog_level = info\n');
    expect(seen).toEqual([]);
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/downloads/:id')).toHaveLength(1);
  });

  it('an absolute link under another name of the appliance (its FQDN) works, from the configured origin', async () => {
    lab = await startLab();
    const port = new URL(lab.zvm.url).port;
    zvmFaults(lab.zvm).downloadLinksOn(`https://zvm-a.lab.invalid:${port}`);
    const { tag } = await pin(lab, 'app-01', 'chg-fqdn');
    const res = await recoverFile(lab.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab.tmp });
    expect(res.content).toBe('listen_port = 8080\nmax_connections = 200\nlog_level = info\n');
    expect(lab.logs.filter((l) => (l.obj as { linkHost?: string }).linkHost === `zvm-a.lab.invalid:${port}`)).toHaveLength(1);
  });

  it('a 401 on the link itself is not reported as a credentials problem', async () => {
    lab = await startLab();
    const { tag } = await pin(lab, 'app-01', 'chg-link-401');
    zvmFaults(lab.zvm).failRoute('GET /v1/downloads/:id', 5, 401);
    const err = await thrown(() => recoverFile(lab!.client, { ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab!.tmp }));
    expect(err.code).toBe('zerto_error');
    expect(err.message).toMatch(/refused its own download link .*HTTP 401/);
    expect(`${err.message} ${err.hint}`).not.toMatch(/credential|account/i);
    expect(err.details.unmount.status).toBe('unmounted');
  });
});

describe('mount status', () => {
  it('an unknown status word is logged once, reported, and ends the wait at the bounded timeout naming it', async () => {
    lab = await startLab();
    const { tag } = await pin(lab, 'app-01', 'chg-status');
    zvmFaults(lab.zvm).mountedStatus('ReadyForBrowsing');
    const progress: RecoverProgress[] = [];
    const err = await thrown(() => recoverFile(lab!.client, {
      ...fast, vm: APP01, checkpoint: { tag }, path: '/etc/app.conf', restoreDir: lab!.tmp, mountTimeoutMs: 600, onProgress: (p) => progress.push(p),
    }));
    expect(err.code).toBe('flr_failed');
    expect(err.message).toMatch(/within 1 s: the ZVM kept reporting status 'ReadyForBrowsing', which this server does not know/);
    expect(err.details.status).toBe('ReadyForBrowsing');
    expect(progress.some((p) => p.message.includes('ReadyForBrowsing (a status this server does not know)'))).toBe(true);
    expect(lab.logs.filter((l) => l.level === 'warn' && (l.obj as { status?: string }).status === 'ReadyForBrowsing')).toHaveLength(1);
    expect(lab.zvm.state.liveSessions()).toHaveLength(0);
  });
});

describe('robust reading', () => {
  it('peer sites without SiteIdentifier are named by their link; rows with a null name are skipped for names, not fatal', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).omitPeerSiteIdentifier();
    zvmFaults(lab.zvm).nullNameRows();
    const ctx = await lab.client.siteContext();
    expect(ctx.peers.map((p) => p.id).sort()).toEqual(['6b6b6b6b-2222-4333-8444-a55555555555', '7c7c7c7c-3333-4444-8555-b66666666666']);
    const rows = await lab.client.listVms();
    expect(rows.filter((r) => r.VmName === null)).toHaveLength(1);
    expect((await lab.client.listVpgs()).some((v) => v.VpgName === null)).toBe(true);
    const found = await findProtection(lab.client, 'erp-01', { locator: labLocator() });
    expect(found.vpgs[0]).toMatchObject({ name: 'vpg-erp-dr', recovery_site: { name: 'lab-zvm-dr' } });
    const byName = await findProtection(lab.client, 'app-01');
    expect(byName.vm.vm_identifier).toBe(APP01);
  });
});

describe('one VM seen through two targets', () => {
  /** The lab locator, with lab-vc1's VMs seen a second time through a target 'lab-vc1-alias' (same vCenter). */
  function aliasLocator(): VmLocator {
    const base = labLocator();
    return {
      async resolveHostOrName(q, opts) {
        const found = await base.resolveHostOrName(q, opts);
        return [...found.filter((m) => m.target === 'lab-vc1').map((m) => ({ ...m, target: 'lab-vc1-alias' })), ...found];
      },
    };
  }

  it('is one VM (same instanceUuid + moid); two genuinely different VMs stay ambiguous', async () => {
    lab = await startLab();
    const site = { ...lab.client.site, vcenterTargets: ['lab-vc1', 'lab-vc1-alias', 'lab-vc2'] };
    const found = await findProtection(lab.client, 'app-01.lab.local', { locator: aliasLocator(), site });
    expect(found.vm).toMatchObject({ name: 'app-01', vm_identifier: APP01, vsphere: { target: 'lab-vc1', instance_uuid: LAB_VCENTERS[0]!.instanceUuid } });
    expect(found.vpgs.map((v) => v.name)).toEqual(['vpg-app', 'vpg-app-critical']);
    const dup = await thrown(() => findProtection(lab!.client, 'dup-01', { locator: aliasLocator(), site }));
    expect(dup.code).toBe('ambiguous_name');
    expect(dup.details.candidates.map((c: { moid: string }) => c.moid).sort()).toEqual(['vm-105', 'vm-106']);
  });
});
