// The simulated ZVM on the wire, spoken to with plain HTTP (not our client), so its shape is
// checked independently of the client that is meant to consume it.

import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabCallLog } from '../../../src/lab/call-log.js';
import { GuestFileSystems } from '../../../src/lab/guest-files.js';
import { LAB_CREDENTIALS, LAB_ZERTO_SITES, labVmIdentifier } from '../../../src/lab/topology.js';
import { LAB_TLS, startLabZvm, type LabZvm } from '../../../src/lab/zvm/index.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

const site = LAB_ZERTO_SITES.find((s) => s.name === 'lab-zvm')!;
const dispatcher = new Agent({ connect: { ca: readFileSync(LAB_TLS.ca, 'utf8') } });
let zvm: LabZvm;
let guests: GuestFileSystems;
const log = new LabCallLog();
let token = '';
// Long enough that a loaded machine still sees a task or mount in progress on its first read.
const TASK_MS = 1_500;

async function call(method: string, path: string, body?: unknown, auth = true): Promise<{ status: number; json: any; headers: Record<string, unknown>; raw: Buffer }> {
  const res = await request(zvm.url + path, {
    method: method as 'GET', dispatcher,
    headers: { ...(auth ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, headers: res.headers, raw };
}

async function waitTask(id: string): Promise<any> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const t = await call('GET', `/v1/tasks/${id}`);
    if (t.json.Status.State !== 1) return t.json;
    await new Promise((r) => setTimeout(r, 30));
  }
  throw new Error('task never finished');
}

beforeAll(async () => {
  guests = GuestFileSystems.fromTopology();
  zvm = await startLabZvm({ site, guests, credentials: { ...LAB_CREDENTIALS }, clientSecret: 's3cr3t-value', callLog: log, autoCheckpointMs: 100, taskDurationMs: TASK_MS });
  const res = await request(`${zvm.url}/auth/realms/zerto/protocol/openid-connect/token`, {
    method: 'POST', dispatcher, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'zerto-client', username: LAB_CREDENTIALS.user, password: LAB_CREDENTIALS.password }).toString(),
  });
  const tok = (await res.body.json()) as { access_token: string; expires_in: number; token_type: string };
  expect(tok.token_type).toBe('Bearer');
  token = tok.access_token;
});

afterAll(async () => {
  await zvm.close();
  await dispatcher.close();
});

describe('simulated ZVM', () => {
  it('serves Keycloak errors in Keycloak shape and rejects /v1 without a valid bearer', async () => {
    const bad = await request(`${zvm.url}/auth/realms/zerto/protocol/openid-connect/token`, {
      method: 'POST', dispatcher, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'zerto-client', username: 'x', password: 'y' }).toString(),
    });
    expect(bad.statusCode).toBe(401);
    expect(await bad.body.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    expect((await call('GET', '/v1/vpgs', undefined, false)).status).toBe(401);
    const cc = await request(`${zvm.url}/auth/realms/zerto/protocol/openid-connect/token`, {
      method: 'POST', dispatcher, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'rewind-tool', client_secret: 's3cr3t-value' }).toString(),
    });
    expect(cc.statusCode).toBe(200);
    await cc.body.dump();
  });

  it('emits PascalCase with lower-case link keys and matches paths case-insensitively', async () => {
    const local = await call('GET', '/V1/LocalSite');
    expect(local.status).toBe(200);
    expect(local.json).toMatchObject({ SiteIdentifier: site.siteIdentifier, SiteName: 'lab-zvm', SiteType: 'VCenter', Link: { type: 'LocalSiteApi' } });
    const vpg = await call('GET', '/v1/vpgs/aaaaaaaa-0000-4000-8000-000000000004');
    expect(vpg.json.ProtectedSite).toMatchObject({ identifier: site.siteIdentifier, type: 'LocalSiteApi' });
    expect(vpg.json.RecoverySite).toMatchObject({ type: 'PeerSiteApi', identifier: '6b6b6b6b-2222-4333-8444-a55555555555' });
  });

  it('lists one /v1/vms row per VM and VPG, including VMs this site only recovers', async () => {
    const app = await call('GET', '/v1/vms?vmName=APP-01');
    expect(app.json.map((r: any) => r.VpgName).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    expect(new Set(app.json.map((r: any) => r.VmIdentifier))).toEqual(new Set([labVmIdentifier('lab-vc1', 'vm-101')]));
    const az = await call('GET', '/v1/vms?vmName=az-web-01');
    expect(az.json).toHaveLength(1);
    expect(az.json[0].ProtectedSite.identifier).toBe('7c7c7c7c-3333-4444-8555-b66666666666');
    expect(az.json[0].Entities.Protected).toBe(5);
  });

  it('answers {Message} for business errors and refuses tagged checkpoints on a cloud-protected VPG', async () => {
    const missing = await call('GET', '/v1/vpgs/nope');
    expect(missing.status).toBe(404);
    expect(typeof missing.json.Message).toBe('string');
    const cloud = await call('POST', '/v1/vpgs/aaaaaaaa-0000-4000-8000-000000000005/checkpoints', { checkpointName: 'x' });
    expect(cloud.status).toBe(400);
    expect(cloud.json.Message).toMatch(/public cloud/);
  });

  it('inserts a tagged checkpoint: bare task id, State 1 then 6, then listed with Type 1', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const ins = await call('POST', '/v1/VPGS/aaaaaaaa-0000-4000-8000-000000000001/Checkpoints', { CheckpointName: 'wire-test' });
    expect(ins.status).toBe(200);
    expect(typeof ins.json).toBe('string');
    expect(ins.json).toMatch(/^[0-9a-f-]{36}\.5a5a5a5a-/);
    const first = await call('GET', `/v1/tasks/${ins.json}`);
    expect(first.json).toMatchObject({ Type: 'InsertTaggedCP', Status: { State: 1 } });
    expect((await waitTask(ins.json)).Status).toEqual({ State: 6, Progress: 100 });
    const cps = await call('GET', `/v1/vpgs/aaaaaaaa-0000-4000-8000-000000000001/checkpoints?startDate=${before}`);
    const tagged = cps.json.filter((c: any) => c.Tag === 'wire-test');
    expect(tagged).toHaveLength(1);
    expect(tagged[0].Type).toBe(1);
    expect(cps.json.some((c: any) => c.Tag === null && c.Type === 0)).toBe(true);
    expect(log.find('zvm:lab-zvm', 'POST /v1/vpgs/:id/checkpoints').at(-1)?.subject).toBe('aaaaaaaa-0000-4000-8000-000000000001');
  });

  it('mounts, browses partitions and downloads a file as it was at the checkpoint', async () => {
    const vmId = labVmIdentifier('lab-vc1', 'vm-104');
    const cps = await call('GET', '/v1/vpgs/aaaaaaaa-0000-4000-8000-000000000003/checkpoints');
    const cp = cps.json.at(-1);
    guests.write(vmId, 'C:\\app\\app.ini', 'changed after the checkpoint');
    const mount = await call('POST', '/v1/flrs', { JFLR: { VpgIdentifier: 'aaaaaaaa-0000-4000-8000-000000000003', VmIdentifier: vmId, CheckpointIdentifier: cp.CheckpointIdentifier } });
    expect(mount.status).toBe(200);
    const sessionId = mount.json as string;
    expect((await call('GET', `/v1/flrs/${sessionId}`)).json[0].FlrSessionStatus).toBe('MountInProgress');
    for (let i = 0; i < 600 && (await call('GET', `/v1/flrs/${sessionId}`)).json[0].FlrSessionStatus !== 'MountCompletedSuccessfully'; i++) await new Promise((r) => setTimeout(r, 30));
    zvmFaults(zvm).flrSessionShape('object');
    expect((await call('GET', `/v1/flrs/${sessionId}`)).json.FlrSessionStatus).toBe('MountCompletedSuccessfully');
    const root = await call('POST', `/v1/flrs/${sessionId}/browse`, { path: '' });
    expect(root.json.PathItems.map((p: any) => p.Path)).toEqual(['partition#0 NTFS', 'partition#1 NTFS']);
    expect((await call('POST', `/v1/flrs/${sessionId}/browse`, { path: 'partition#1 NTFS\\app' })).status).toBe(400);
    const dir = await call('POST', `/v1/flrs/${sessionId}/browse`, { path: 'partition#1 NTFS/APP' });
    expect(dir.json.PathItems[0]).toMatchObject({ Path: 'partition#1 NTFS/app/app.ini', Type: 'File', SizeInBytes: 30 });
    const link = await call('POST', `/v1/flrs/${sessionId}/download`, { pathList: ['partition#1 NTFS/app/app.ini'] });
    expect(link.json).toMatch(/^v1\/downloads\//);
    expect((await call('GET', `/${link.json}`, undefined, false)).status).toBe(401);
    const file = await call('GET', `/${link.json}`);
    expect(file.raw.toString()).toBe('[server]\nport=8443\nthreads=16\n');
    expect(String(file.headers['content-disposition'])).toContain('filename="app.ini"');
    zvmFaults(zvm).downloadPackaging('zip');
    zvmFaults(zvm).downloadUrl('absolute');
    const zipLink = await call('POST', `/v1/flrs/${sessionId}/download`, { pathList: ['partition#1 NTFS/app/app.ini'] });
    expect(zipLink.json.startsWith(zvm.url)).toBe(true);
    const zip = await call('GET', zipLink.json.slice(zvm.url.length));
    expect(Buffer.from(unzipSync(zip.raw)['app.ini']!).toString()).toContain('port=8443');
    const del = await call('DELETE', `/v1/flrs/${sessionId}`);
    expect((await waitTask(del.json)).Type).toBe('FlrJournalUnmount');
    expect((await call('GET', `/v1/flrs/${sessionId}`)).status).toBe(404);
    expect((await call('GET', `/${link.json}`)).status).toBe(404);
    zvmFaults(zvm).reset();
  });

  it('refuses FLR for a VPG that recovers at another site', async () => {
    const cps = await call('GET', '/v1/vpgs/aaaaaaaa-0000-4000-8000-000000000004/checkpoints');
    const res = await call('POST', '/v1/flrs', { jflr: { vpgIdentifier: 'aaaaaaaa-0000-4000-8000-000000000004', vmIdentifier: labVmIdentifier('lab-vc2', 'vm-201'), checkpointIdentifier: cps.json[0].CheckpointIdentifier } });
    expect(res.status).toBe(400);
    expect(res.json.Message).toMatch(/recovery site lab-zvm-dr/);
  });

  it('injects route failures and token expiry', async () => {
    zvmFaults(zvm).failRoute('GET /v1/vpgs', 2, 503);
    expect((await call('GET', '/v1/vpgs')).status).toBe(503);
    expect((await call('GET', '/v1/vpgs')).status).toBe(503);
    expect((await call('GET', '/v1/vpgs')).status).toBe(200);
    zvmFaults(zvm).expireTokens();
    expect((await call('GET', '/v1/vpgs')).status).toBe(401);
  });
});

describe('simulated ZVM, closer to a real one', () => {
  const APP = labVmIdentifier('lab-vc1', 'vm-101');
  const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
  beforeAll(async () => {
    // The tests above expire tokens: log in again, through the client-credentials grant this time.
    const res = await request(`${zvm.url}/auth/realms/zerto/protocol/openid-connect/token`, {
      method: 'POST', dispatcher, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'rewind-tool', client_secret: 's3cr3t-value' }).toString(),
    });
    token = ((await res.body.json()) as { access_token: string }).access_token;
  });

  it('matches query-string keys case-insensitively, as ASP.NET binds them (the Exporter sends vmname, vpgidentifier)', async () => {
    const all = (await call('GET', '/v1/vms')).json as unknown[];
    for (const key of ['vmName', 'vmname', 'VMNAME']) {
      const rows = (await call('GET', `/v1/vms?${key}=app-01`)).json as Array<{ VmName: string }>;
      expect(rows.length).toBeLessThan(all.length);
      expect(rows.map((r) => r.VmName)).toEqual(['app-01', 'app-01']);
    }
    const one = await call('GET', `/v1/vms/${APP}?vpgidentifier=${VPG_APP}`);
    expect(one.status).toBe(200);
    expect(one.json.VpgIdentifier).toBe(VPG_APP);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call('GET', `/v1/vpgs/${VPG_APP}/checkpoints?startdate=${future}`)).json).toEqual([]);
  });

  it('answers the routes real clients call: pointsInTime (+stats), task types, VPG enums, local time, one peer site', async () => {
    const points = await call('GET', `/v1/vms/${APP}/pointsInTime?vpgIdentifier=${VPG_APP}`);
    expect(points.status).toBe(200);
    expect(points.json[0]).toMatchObject({ Checkpoint: { CheckpointIdentifier: expect.any(String) }, CanMount: { IsAllowed: true, Reason: null } });
    const stats = await call('GET', `/v1/vms/${APP}/pointsInTime/stats?vpgIdentifier=${VPG_APP}`);
    expect(stats.json.Latest.CheckpointIdentifier).toEqual(expect.any(String));
    expect((await call('GET', `/v1/vms/${APP}/pointsInTime`)).status).toBe(400);
    const erp = labVmIdentifier('lab-vc2', 'vm-201');
    const remote = await call('GET', `/v1/vms/${erp}/pointsInTime`);
    expect(remote.json[0].CanMount).toEqual({ IsAllowed: false, Reason: expect.stringMatching(/recovery site lab-zvm-dr/) });
    expect((await call('GET', '/v1/tasks/types')).json).toContain('InsertTaggedCP');
    expect((await call('GET', '/v1/vpgs/statuses')).json).toContain('MeetingSLA');
    expect((await call('GET', '/v1/vpgs/entitytypes')).json[0]).toBe('VCenter');
    expect(Date.parse((await call('GET', '/v1/serverDateTime/serverDateTimeLocal')).json)).not.toBeNaN();
    const peer = await call('GET', '/v1/peersites/6b6b6b6b-2222-4333-8444-a55555555555');
    expect(peer.json).toMatchObject({ SiteIdentifier: '6b6b6b6b-2222-4333-8444-a55555555555', PeerSiteName: 'lab-zvm-dr' });
    expect((await call('GET', '/v1/peersites/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call('GET', '/v1/tasks?type=FlrJournalMount')).json.every((t: { Type: string }) => t.Type === 'FlrJournalMount')).toBe(true);
  });

  it('pages FLR browse by default and honours pageNumber and pageSize', async () => {
    for (let i = 0; i < 70; i++) guests.write(APP, `/srv/big/f${String(i).padStart(2, '0')}`, 'x');
    await new Promise((r) => setTimeout(r, 5));
    zvm.state.autoCheckpoint();
    const cp = (await call('GET', `/v1/vpgs/${VPG_APP}/checkpoints`)).json.at(-1);
    const sid = (await call('POST', '/v1/flrs', { jflr: { vpgIdentifier: VPG_APP, vmIdentifier: APP, checkpointIdentifier: cp.CheckpointIdentifier } })).json;
    for (let i = 0; i < 600 && (await call('GET', `/v1/flrs/${sid}`)).json[0].FlrSessionStatus !== 'MountCompletedSuccessfully'; i++) await new Promise((r) => setTimeout(r, 30));
    const folder = 'partition#1 Ext4/srv/big';
    expect((await call('POST', `/v1/flrs/${sid}/browse`, { path: folder })).json.PathItems).toHaveLength(50);
    expect((await call('POST', `/v1/flrs/${sid}/browse`, { path: folder, pageNumber: 2 })).json.PathItems).toHaveLength(20);
    const p3 = (await call('POST', `/v1/flrs/${sid}/browse`, { PageNumber: 3, PageSize: 30, Path: folder })).json.PathItems;
    expect(p3.map((p: { Path: string }) => p.Path.split('/').at(-1))).toEqual(Array.from({ length: 10 }, (_, i) => `f${60 + i}`));
    await call('DELETE', `/v1/flrs/${sid}`);
  });
});
