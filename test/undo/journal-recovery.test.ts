// Journal recovery against the whole lab over the wire: two simulated vCenters and the simulated
// ZVMs (one journal), the real Zerto client and the real vSphere client. A VM deleted in vSphere is
// found by what the change recorded about it, and Zerto's clone or failover test brings it back at
// the pinned checkpoint on the recovery site's vCenter, production untouched.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningWork } from '../../src/core/change-record.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { labVmIdentifier } from '../../src/lab/topology.js';
import { journalFaults, zvmFaults } from '../../src/lab/zvm/testing/faults.js';
import { TargetPool } from '../../src/vsphere/target-pool.js';
import { ZvmClient } from '../../src/zerto/client.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { withSiteDefaults } from '../../src/zerto/site-config.js';
import { journalRecoveryDeps } from '../../src/app/adapters/journal-recovery-deps.js';
import {
  journalRecoveryOptions, runJournalRecovery, stopJournalFailoverTest, type JournalRecoveryDeps, type JournalRecoveryOption, type PinnedPoint,
} from '../../src/undo/journal-recovery.js';
import { tempDir } from '../support/harness.js';

const VPG_APP = 'aaaaaaaa-0000-4000-8000-000000000001';
const VPG_APP_CRITICAL = 'aaaaaaaa-0000-4000-8000-000000000002';
const VPG_ERP_DR = 'aaaaaaaa-0000-4000-8000-000000000004';
const WEB01 = { name: 'web-01', moid: 'vm-102', target: 'lab-vc1' };
const APP01 = { name: 'app-01', moid: 'vm-101', target: 'lab-vc1' };
const ERP01 = { name: 'erp-01', moid: 'vm-201', target: 'lab-vc2' };

let lab: TestLab;
let pool: TargetPool;
let sites: Array<{ config: ReturnType<typeof withSiteDefaults>; client: ZvmClient }>;
let deps: JournalRecoveryDeps;

beforeAll(async () => {
  lab = await startLab({ stateDir: tempDir('zr-undo-'), env: {}, zvmTaskMs: 150, autoCheckpointMs: 200, fillerVms: 0 });
  const secrets = envSecretSource(lab.env);
  pool = new TargetPool(lab.config.targets, { secrets, keepaliveMs: 0 });
  sites = lab.config.app.sites.map((s) => {
    const config = withSiteDefaults({ ...s });
    return { config, client: new ZvmClient({ site: config, secrets, requestTimeoutMs: 10_000 }) };
  });
  deps = { sites, pollIntervalMs: 40, recoveryTimeoutMs: 20_000 };
});
afterAll(async () => {
  await Promise.all(sites?.map((s) => s.client.close()) ?? []);
  await pool?.closeAll();
  await lab?.stop();
});
afterEach(() => {
  for (const z of lab.zvms.values()) zvmFaults(z).reset();
});

const site = (name: string) => sites.find((s) => s.config.name === name)!;
const vmsOn = (target: string) => pool.run(target, (c, call) => c.listVms(call));

/** Pins a tagged checkpoint on the VPGs, as the guard does before a change; the first VPG's point is the record's. */
async function pin(vm: string, vpgs: string[], change: string): Promise<PinnedPoint> {
  const res = await pinTaggedCheckpoint(site('lab-zvm').client, { vpgs, agent: 'claude', action: 'delete', vm, changeId: change, pollMs: 40, timeoutMs: 10_000 });
  const cp = res.checkpoints[0]!;
  return { id: cp.checkpoint_id, time: cp.timestamp, tag: res.tag };
}

async function until(cond: () => boolean | Promise<boolean>, ms = 25_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 30));
  }
}

function optionsOf(res: Awaited<ReturnType<typeof journalRecoveryOptions>>): JournalRecoveryOption[] {
  if (!('options' in res)) throw new Error(`expected options, got: ${res.not_possible}`);
  return res.options;
}

describe('a VM deleted in vSphere', () => {
  let point: PinnedPoint;
  beforeAll(async () => {
    point = await pin('web-01', [VPG_APP], 'undo-deleted-1');
    // The bad change: the guest's file is overwritten, then the VM is deleted.
    lab.guests.write({ target: 'lab-vc1', moid: 'vm-102' }, '/etc/nginx/nginx.conf', 'broken;\n');
    await pool.run('lab-vc1', (c, call) => c.powerOff('vm-102', call));
    await pool.run('lab-vc1', (c, call) => c.destroy('vm-102', call));
    expect((await vmsOn('lab-vc1')).some((v) => v.moid === 'vm-102')).toBe(false);
  });

  it('is found by its recorded name, moid and target, and gets a clone first, then a failover test', async () => {
    const options = optionsOf(await journalRecoveryOptions(WEB01, point, deps));
    expect(options.map((o) => [o.mode, o.vpg.name, o.site])).toEqual([['clone', 'vpg-app', 'lab-zvm'], ['failover_test', 'vpg-app', 'lab-zvm']]);
    expect(options[0]).toMatchObject({ vm: WEB01, checkpoint: point, production_untouched: true });
    expect(options[0]!.produces).toMatch(/^a clone of 'web-01' at checkpoint .* on recovery site 'lab-zvm'.*production untouched$/);
    expect(options[1]!.produces).toContain("'web-01 - testing recovery'");
    // The vCenter still answers for its instanceUuid although the VM is gone: the same VPG, by identifier.
    const wired = journalRecoveryDeps({ sites, pollIntervalMs: 40 }, pool);
    expect(await wired.vmIdentifierOf!({ target: 'lab-vc1', moid: 'vm-102' })).toBe(labVmIdentifier('lab-vc1', 'vm-102'));
    const byId = optionsOf(await journalRecoveryOptions(WEB01, point, wired));
    expect(byId.map((o) => o.vpg.id)).toEqual([VPG_APP, VPG_APP]);
  });

  it('a clone at the checkpoint runs to done: the clone exists on the recovery vCenter, the VPG\'s other VM is not cloned', async () => {
    const before = await vmsOn('lab-vc1');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps)).find((o) => o.mode === 'clone')!;
    const running: RunningWork[] = [];
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal, running: (w) => running.push(w) });
    expect(res).toMatchObject({ mode: 'clone', status: 'done', produced: { vpg: 'vpg-app', recovery_site: 'lab-zvm', clone_of: 'web-01', production_untouched: true, checkpoint: { id: point.id } } });
    expect(running).toEqual([{ kind: 'zerto_task', site: 'lab-zvm', task_id: res.produced!.task_id, vpg_id: VPG_APP, operation: 'clone' }]);
    const after = await vmsOn('lab-vc1');
    const added = after.filter((v) => !before.some((b) => b.moid === v.moid));
    expect(added.map((v) => [v.name, v.power_state])).toEqual([[expect.stringMatching(/^web-01-\d{14}$/), 'poweredOff']]);
    // The clone is the VM as it was at the checkpoint, before the bad write.
    expect(lab.guests.read({ target: 'lab-vc1', moid: added[0]!.moid }, '/etc/nginx/nginx.conf')?.toString()).toBe('worker_processes auto;\n');
    // vpg-app also protects app-01: vmIdentifiers kept the clone to web-01, and app-01 is as it was.
    expect(after.find((v) => v.moid === 'vm-101')).toEqual(before.find((v) => v.moid === 'vm-101'));
  });
});

describe('a VM in two VPGs', () => {
  it('is offered on both: the second VPG\'s checkpoint is found by the tag under its own id', async () => {
    const point = await pin('app-01', [VPG_APP, VPG_APP_CRITICAL], 'undo-two-vpgs');
    const options = optionsOf(await journalRecoveryOptions(APP01, point, deps));
    const clones = options.filter((o) => o.mode === 'clone');
    expect(clones.map((o) => o.vpg.id).sort()).toEqual([VPG_APP, VPG_APP_CRITICAL]);
    const other = clones.find((o) => o.vpg.id === VPG_APP_CRITICAL)!;
    expect(other.checkpoint.tag).toBe(point.tag);
    expect(other.checkpoint.id).not.toBe(point.id);
    expect(options.slice(0, 2).every((o) => o.mode === 'clone')).toBe(true);
  });
});

describe('production untouched across sites', () => {
  it('clones erp-01 (production on lab-vc2) into the DR site\'s vCenter lab-vc1; erp-01 keeps running', async () => {
    const point = await pin('erp-01', [VPG_ERP_DR], 'undo-erp');
    const prodBefore = (await vmsOn('lab-vc2')).find((v) => v.moid === 'vm-201')!;
    const clone = optionsOf(await journalRecoveryOptions(ERP01, point, deps)).find((o) => o.mode === 'clone')!;
    expect(clone.produces).toContain("recovery site 'lab-zvm-dr'");
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    expect(res.status).toBe('done');
    expect((await vmsOn('lab-vc1')).filter((v) => /^erp-01-\d{14}$/.test(v.name))).toHaveLength(1);
    const prodAfter = (await vmsOn('lab-vc2')).find((v) => v.moid === 'vm-201');
    expect(prodAfter).toEqual(prodBefore);
    expect(prodAfter!.power_state).toBe('poweredOn');
  });
});

describe('a failover test', () => {
  it('starts at the checkpoint, shows in the VPG\'s ActiveProcessesApi, and its stop removes the test VM', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-test');
    const webVm = { name: 'web-01', moid: 'vm-102', target: 'lab-vc1' };
    const test = optionsOf(await journalRecoveryOptions(webVm, point, deps)).find((o) => o.mode === 'failover_test')!;
    const res = await runJournalRecovery(test, deps, { signal: new AbortController().signal });
    expect(res).toMatchObject({ status: 'done', produced: { test_vm: 'web-01 - testing recovery', running_until_stopped: true, stop: { site: 'lab-zvm', vpg: { id: VPG_APP } } } });
    const zvm = site('lab-zvm').client;
    expect((await zvm.getVpg(VPG_APP)).ActiveProcessesApi?.RunningFailOverTestApi?.Stage).toBe('Running');
    const testVm = (await vmsOn('lab-vc1')).find((v) => v.name === 'web-01 - testing recovery');
    expect(testVm?.power_state).toBe('poweredOn');
    // A second test is not offered while one runs; the clone still is.
    expect(optionsOf(await journalRecoveryOptions(webVm, point, deps)).map((o) => o.mode)).toEqual(['clone']);

    const stopped = await stopJournalFailoverTest(test, deps, { signal: new AbortController().signal });
    expect(stopped).toMatchObject({ mode: 'failover_test_stop', status: 'done' });
    expect((await zvm.getVpg(VPG_APP)).ActiveProcessesApi?.RunningFailOverTestApi ?? null).toBeNull();
    expect((await vmsOn('lab-vc1')).some((v) => v.moid === testVm!.moid)).toBe(false);
  });
});

describe('when Zerto cannot recover it', () => {
  it('says not possible when no VPG protects the VM', async () => {
    const res = await journalRecoveryOptions({ name: 'test-01', moid: 'vm-108', target: 'lab-vc1' }, { id: '1', time: new Date().toISOString() }, deps);
    expect(res).toMatchObject({ code: 'not_protected' });
    expect('not_possible' in res && res.not_possible).toMatch(/No VPG at Zerto site\(s\) .*'lab-zvm'.* holds 'test-01' \(lab-vc1\/vm-108\)/);
  });

  it('says not possible, naming the journal\'s earliest point, when the checkpoint left the journal', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-expired');
    const zvm = lab.zvms.get('lab-zvm')!;
    journalFaults(zvm.state.journal).resync(VPG_APP);
    await until(() => zvm.state.listedCheckpoints(VPG_APP).length > 0);
    const res = await journalRecoveryOptions(WEB01, point, deps);
    const earliest = new Date(zvm.state.listedCheckpoints(VPG_APP)[0]!.at).toISOString();
    expect(res).toMatchObject({ code: 'checkpoint_expired' });
    expect('not_possible' in res && res.not_possible).toContain(`VPG 'vpg-app' now starts at ${earliest}`);
  });

  it('a checkpoint gone between proposal and run fails with checkpoint_expired before anything starts', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-gone-later');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const zvm = lab.zvms.get('lab-zvm')!;
    const started = zvm.state.recoveries.requests.length;
    journalFaults(zvm.state.journal).resync(VPG_APP);
    await until(() => zvm.state.listedCheckpoints(VPG_APP).length > 0);
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    expect(res).toMatchObject({ status: 'failed', code: 'checkpoint_expired' });
    expect(res.reason).toMatch(/now starts at .*Nothing was started\.$/);
    expect(zvm.state.recoveries.requests.length).toBe(started);
  });

  it('a checkpoint the journal drops while the start is on its way: the ZVM\'s refusal reads checkpoint_expired', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-race');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const zvm = lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).delayRoute('POST /v1/vpgs/:id/CloneStart', 400);
    const from = lab.callLog.calls.at(-1)?.seq ?? 0;
    const run = runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    // The request has reached the ZVM and waits there: the journal re-syncs meanwhile.
    await until(() => lab.callLog.find('zvm:lab-zvm', 'POST /v1/vpgs/:id/CloneStart').some((c) => c.seq > from));
    journalFaults(zvm.state.journal).resync(VPG_APP);
    const res = await run;
    expect(res).toMatchObject({ status: 'failed', code: 'checkpoint_expired' });
    expect(res.reason).toContain(`Checkpoint ${clone.checkpoint.id} does not exist in the journal of VPG vpg-app`);
    expect(res.reason).toMatch(/now starts at|does not say where its journal starts/);
  });

  it('maps the ZVM\'s refusal to a failed result with its words, and a failed task to task_failed', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-refused');
    const options = optionsOf(await journalRecoveryOptions(WEB01, point, deps));
    const test = options.find((o) => o.mode === 'failover_test')!;
    const clone = options.find((o) => o.mode === 'clone')!;
    const signal = new AbortController().signal;
    expect((await runJournalRecovery(test, deps, { signal })).status).toBe('done');
    try {
      const again = await runJournalRecovery(test, deps, { signal });
      expect(again).toMatchObject({ status: 'failed', code: 'refused' });
      expect(again.reason).toContain("refused the failover test of VPG 'vpg-app'");
      expect(again.reason).toContain('VPG vpg-app is already in a failover test');
      expect(again.produced).toBeUndefined();
      zvmFaults(lab.zvms.get('lab-zvm')!).cloneDuringTest('refuse');
      const blocked = await runJournalRecovery(clone, deps, { signal });
      expect(blocked).toMatchObject({ status: 'failed', code: 'refused' });
      expect(blocked.reason).toContain('cannot be cloned while a failover test is running');
    } finally {
      expect((await stopJournalFailoverTest(test, deps, { signal })).status).toBe('done');
    }
    zvmFaults(lab.zvms.get('lab-zvm')!).failNextTask('Clone', 'Not enough free space on datastore ds-ssd-01');
    const failed = await runJournalRecovery(clone, deps, { signal });
    expect(failed).toMatchObject({ status: 'failed', code: 'task_failed', produced: { vpg: 'vpg-app' } });
    expect(failed.reason).toContain('Not enough free space on datastore ds-ssd-01');
  });
});

describe('abort by signal', () => {
  it('aborts the clone at the ZVM (CloneAbort) and no clone VM appears', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-abort');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const zvm = lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).slowTasks(1_500);
    const before = (await vmsOn('lab-vc1')).length;
    const controller = new AbortController();
    const res = await runJournalRecovery(clone, deps, { signal: controller.signal, running: () => setTimeout(() => controller.abort(), 100) });
    expect(res).toMatchObject({ status: 'failed', code: 'cancelled' });
    expect(res.reason).toContain('the clone was aborted (CloneAbort accepted)');
    const run = zvm.state.recoveries.clones.get(VPG_APP)!;
    expect(zvm.state.taskView(run.task).state).toBe(5);
    await new Promise((r) => setTimeout(r, 1_700));
    expect((await vmsOn('lab-vc1')).length).toBe(before);
  });

  it('an already aborted signal asks Zerto nothing', async () => {
    const zvm = lab.zvms.get('lab-zvm')!;
    const asked = zvm.state.recoveries.requests.length;
    const controller = new AbortController();
    controller.abort();
    const option: JournalRecoveryOption = {
      mode: 'clone', vm: WEB01, vpg: { id: VPG_APP, name: 'vpg-app' }, site: 'lab-zvm', checkpoint: { id: '1', time: new Date().toISOString() }, produces: 'x', production_untouched: true,
    };
    expect(await runJournalRecovery(option, deps, { signal: controller.signal })).toMatchObject({ status: 'failed', code: 'cancelled', reason: expect.stringContaining('nothing changed') });
    expect(zvm.state.recoveries.requests.length).toBe(asked);
  });
});

describe('a ZVM that answers less than it should', () => {
  it('a failover test whose tasks the ZVM will not show is judged by the VPG\'s ActiveProcessesApi, start and stop', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-hidden-tasks');
    const test = optionsOf(await journalRecoveryOptions(WEB01, point, deps)).find((o) => o.mode === 'failover_test')!;
    const zvm = lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).taskRouteRefusesToken();
    const signal = new AbortController().signal;
    expect(await runJournalRecovery(test, deps, { signal })).toMatchObject({ status: 'done' });
    expect(zvm.state.recoveries.tests.has(VPG_APP)).toBe(true);
    expect(await stopJournalFailoverTest(test, deps, { signal })).toMatchObject({ status: 'done' });
    expect(zvm.state.recoveries.tests.has(VPG_APP)).toBe(false);
  });

  it('a clone whose task the ZVM will not show is reported unknown, not done', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-hidden-clone');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    zvmFaults(lab.zvms.get('lab-zvm')!).taskRouteRefusesToken();
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    expect(res).toMatchObject({ status: 'failed', code: 'unknown', produced: { task_id: expect.any(String) } });
    expect(res.reason).toContain('would not show task');
  });

  it('a CloneStart answered 500 is not retried (a second POST would start a second clone)', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-500');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const from = lab.callLog.calls.at(-1)?.seq ?? 0;
    zvmFaults(lab.zvms.get('lab-zvm')!).failRoute('POST /v1/vpgs/:id/CloneStart', 1, 500, 'Internal server error');
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    expect(res).toMatchObject({ status: 'failed', code: 'unknown' });
    expect(res.reason).toContain('check the Zerto UI for a running clone before asking again');
    expect(lab.callLog.find('zvm:lab-zvm', 'POST /v1/vpgs/:id/CloneStart').filter((c) => c.seq > from)).toHaveLength(1);
  });

  it('a ZVM that stops answering after it accepted a clone: failed as unknown, with the task, never "nothing changed"', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-lost');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const zvm = lab.zvms.get('lab-zvm')!;
    // Every poll of the task is lost on the way (the client's own timeout), after the start was accepted.
    zvmFaults(zvm).delayRoute('GET /v1/tasks/:id', 60_000);
    const quick = new ZvmClient({ site: site('lab-zvm').config, secrets: envSecretSource(lab.env), requestTimeoutMs: 1_000 });
    try {
      const res = await runJournalRecovery(clone, { ...deps, sites: [{ config: site('lab-zvm').config, client: quick }] }, { signal: new AbortController().signal });
      expect(res).toMatchObject({ status: 'failed', code: 'unknown', produced: { task_id: expect.any(String), vpg: 'vpg-app' } });
      expect(res.reason).toContain('accepted the clone');
      expect(res.reason).not.toMatch(/nothing (changed|was started)/i);
    } finally {
      zvmFaults(zvm).delayRoute('GET /v1/tasks/:id', 0);
      await quick.close();
    }
  });

  it('a run whose site cannot be asked any more answers failed, nothing started, instead of throwing', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-site-down');
    const clone = optionsOf(await journalRecoveryOptions(WEB01, point, deps))[0]!;
    const zvm = lab.zvms.get('lab-zvm')!;
    const asked = zvm.state.recoveries.requests.length;
    zvmFaults(zvm).failRoute('GET /v1/vms', 10, 503);
    const res = await runJournalRecovery(clone, deps, { signal: new AbortController().signal });
    expect(res).toMatchObject({ status: 'failed', code: 'protection_unknown' });
    expect(res.reason).toMatch(/Nothing was started\.$/);
    expect(zvm.state.recoveries.requests.length).toBe(asked);
  });

  it('a site that cannot be asked makes the options unknown (protection_unknown), never "not protected"', async () => {
    zvmFaults(lab.zvms.get('lab-zvm')!).failRoute('GET /v1/vms', 10, 503);
    await expect(journalRecoveryOptions(WEB01, { id: '1', time: new Date().toISOString() }, deps)).rejects.toMatchObject({ code: 'protection_unknown' });
  });

  it('a vCenter that cannot give the VmIdentifier still leaves the name and moid to find the VM', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-no-vcenter');
    const failing: JournalRecoveryDeps = { ...deps, vmIdentifierOf: async () => { throw new Error('vCenter down'); } };
    expect(optionsOf(await journalRecoveryOptions(WEB01, point, failing)).map((o) => o.mode)).toEqual(['clone', 'failover_test']);
  });

  it('cancelling a failover test while it starts stops it, and its test VM never stays', async () => {
    const point = await pin('web-01', [VPG_APP], 'undo-abort-test');
    const test = optionsOf(await journalRecoveryOptions(WEB01, point, deps)).find((o) => o.mode === 'failover_test')!;
    const zvm = lab.zvms.get('lab-zvm')!;
    zvmFaults(zvm).slowTasks(800);
    const controller = new AbortController();
    const res = await runJournalRecovery(test, deps, { signal: controller.signal, running: () => setTimeout(() => controller.abort(), 100) });
    expect(res).toMatchObject({ status: 'failed', code: 'cancelled' });
    expect(res.reason).toContain('the test was stopped (FailoverTestStop accepted)');
    await until(() => !zvm.state.recoveries.tests.has(VPG_APP));
    expect((await vmsOn('lab-vc1')).some((v) => v.name === 'web-01 - testing recovery')).toBe(false);
  });
});

describe('request shapes against the 10.0 U6 Swagger DTOs', () => {
  // The members of CloneStartDataApi, FailOverTestStartDataApi and StopFailoverTestDataApi in
  // virtkot/zerto-python-library:10.0_U6_Swagger.json (docs/zerto-notes.md).
  const SWAGGER = {
    'POST /v1/vpgs/:id/CloneStart': ['checkpointId', 'datastoreIdentifier', 'vmIdentifiers'],
    'POST /v1/vpgs/:id/FailoverTest': ['checkpointIdentifier', 'vmIdentifiers'],
    'POST /v1/vpgs/:id/FailoverTestStop': ['failoverTestSuccess', 'failoverTestSummary'],
  } as Record<string, string[]>;

  it('every body the client sent carries exactly the DTO\'s members, with the one VM in vmIdentifiers', async () => {
    // Its own clone, failover test and stop, so it reads no request another test made.
    const recoveries = lab.zvms.get('lab-zvm')!.state.recoveries;
    const from = recoveries.requests.length;
    const point = await pin('web-01', [VPG_APP], 'undo-dto-shapes');
    const options = optionsOf(await journalRecoveryOptions(WEB01, point, deps));
    const signal = new AbortController().signal;
    expect((await runJournalRecovery(options.find((o) => o.mode === 'clone')!, deps, { signal })).status).toBe('done');
    const test = options.find((o) => o.mode === 'failover_test')!;
    expect((await runJournalRecovery(test, deps, { signal })).status).toBe('done');
    expect((await stopJournalFailoverTest(test, deps, { signal })).status).toBe('done');
    const requests = recoveries.requests.slice(from).filter((r) => r.route in SWAGGER);
    expect(new Set(requests.map((r) => r.route))).toEqual(new Set(Object.keys(SWAGGER)));
    for (const r of requests) {
      expect(Object.keys(r.body as object).sort()).toEqual([...SWAGGER[r.route]!].sort());
      const ids = (r.body as { vmIdentifiers?: string[] }).vmIdentifiers;
      if (ids) expect(ids).toHaveLength(1);
    }
  });

  it('the lab accepts the PascalCase bodies Zerto\'s own clients send (ZertoApiWrapper, zvml-python-sdk)', async () => {
    const zvm = lab.zvms.get('lab-zvm')!;
    const cp = zvm.state.listedCheckpoints(VPG_APP).at(-1)!;
    const id = labVmIdentifier('lab-vc1', 'vm-102');
    const token = await (site('lab-zvm').client as any).auth.token();
    const post = (path: string, body: unknown) => fetchLab(`${zvm.url}${path}`, token, body);
    expect((await post(`/v1/vpgs/${VPG_APP}/CloneStart`, { checkpointId: cp.id, VmIdentifiers: [id] })).status).toBe(200);
    await until(() => zvm.state.taskView(zvm.state.recoveries.clones.get(VPG_APP)!.task).state === 6);
    expect((await post(`/v1/vpgs/${VPG_APP}/FailoverTest`, { CheckpointIdentifier: cp.id, VmIdentifiers: [id] })).status).toBe(200);
    expect((await post(`/v1/vpgs/${VPG_APP}/FailoverTestStop`, { FailoverTestSuccess: true, FailoverTestSummary: 'done' })).status).toBe(200);
    await until(() => !zvm.state.recoveries.tests.has(VPG_APP));
    expect((await post(`/v1/vpgs/${VPG_APP}/FailoverTest`, { CheckpointIdentifier: 'no-such-checkpoint' })).status).toBe(400);
  });
});

/** A raw POST to the lab ZVM over TLS with the lab CA, as a third-party client would send it. */
async function fetchLab(url: string, token: string, body: unknown): Promise<{ status: number }> {
  const { request, Agent } = await import('undici');
  const { readFileSync } = await import('node:fs');
  const { LAB_CA_FILE } = await import('../../src/lab/lab-mode.js');
  const res = await request(url, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    dispatcher: new Agent({ connect: { ca: readFileSync(LAB_CA_FILE) } }),
  });
  await res.body.text();
  return { status: res.statusCode };
}
