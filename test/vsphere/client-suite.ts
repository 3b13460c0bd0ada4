// The vSphere client suite, written once and run against every simulator we have: govmomi's vcsim
// (test/vcsim/vcsim-client.test.ts) and our own lab vCenter (test/vsphere/lab-client.test.ts). Each
// simulator is started through a factory; where producers legitimately differ (vcsim ignores
// maxObjects, has no task collector, no customizationInfo) the factory's `capabilities` says which
// answer to expect, and the test asserts that answer instead of skipping.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretSource } from '../../src/core/secrets.js';
import { VsphereClient } from '../../src/vsphere/client.js';
import { TargetPool } from '../../src/vsphere/target-pool.js';
import { retrieveFromView } from '../../src/vsphere/views.js';
import type { TargetConfig } from '../../src/vsphere/target-config.js';
import { caught } from '../support/harness.js';

export interface SimHandle {
  target(name: string, overrides?: Partial<TargetConfig>): TargetConfig;
  secrets: SecretSource;
  /** VMs in the inventory at start. */
  vmCount: number;
  instanceUuid: string;
  /** Make the simulator forget every client session (vCenter's idle expiry, on demand). */
  expireSessions(): Promise<void>;
  /** Make every SOAP call hang (true) or answer again (false). */
  hang(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

export interface SimFactory {
  name: string;
  /** Starts a simulator with about `vms` VMs (exact count in handle.vmCount). */
  start(opts: { vms: number; instanceUuid: string }): Promise<SimHandle>;
  capabilities: {
    /** RetrievePropertiesEx honours page sizes and ContinueRetrievePropertiesEx exists. */
    paging: boolean;
    /** CreateCollectorForTasks exists (else TaskManager.recentTask answers). */
    taskHistoryCollector: boolean;
  };
}

export function defineClientSuite(factory: SimFactory): void {
  describe(`vSphere client against ${factory.name}`, () => {
    let sim: SimHandle;
    let client: VsphereClient;

    beforeAll(async () => {
      sim = await factory.start({ vms: 12, instanceUuid: '11111111-aaaa-4000-8000-000000000001' });
      client = new VsphereClient(sim.target('sim-a'), { secrets: sim.secrets, keepaliveMs: 0 });
    });
    afterAll(async () => {
      await client?.close();
      await sim?.stop();
    });

    it('reads about() from the service content', async () => {
      const about = await client.about();
      expect(about.apiVersion).toMatch(/^\d+\.\d+/);
      expect(about.instanceUuid).toBe(sim.instanceUuid);
      expect(about.apiType).toBe('VirtualCenter');
    });

    it('lists every VM in one view pass with names resolved', async () => {
      const before = client.stats.roundTrips;
      const vms = await client.listVms();
      expect(client.stats.roundTrips - before).toBe(3); // CreateContainerView, RetrievePropertiesEx, DestroyView
      expect(vms).toHaveLength(sim.vmCount);
      // config.createDate exists from API 6.7; on older producers (vcsim reports 6.5) it is not
      // asked for, since a real 6.5 vCenter would fault the whole listing.
      const api = (await client.about()).apiVersion;
      const hasCreateDate = Number.parseFloat(api) >= 6.7;
      for (const vm of vms) {
        expect(vm.created_at === null).toBe(!hasCreateDate);
        expect(vm.moid).toBeTruthy();
        expect(vm.host?.name).not.toBe(vm.host?.moid);
        expect(vm.folder).toMatch(/^\/[^/]+\/vm/);
        expect(vm.datastores.length).toBeGreaterThan(0);
        expect(vm.datastores[0]?.name).not.toBe(vm.datastores[0]?.moid);
        expect(['poweredOn', 'poweredOff', 'suspended']).toContain(vm.power_state);
        expect(vm.num_cpu).toBeGreaterThan(0);
        expect(vm.memory_mb).toBeGreaterThan(0);
      }
      expect(vms.some((v) => v.cluster !== null)).toBe(true);
    });

    it('lists hosts, clusters and datastores', async () => {
      const hosts = await client.listHosts();
      expect(hosts.length).toBeGreaterThan(0);
      expect(hosts.reduce((n, h) => n + h.vm_count, 0)).toBeGreaterThanOrEqual(1);
      expect(hosts[0]?.cpu_cores).toBeGreaterThan(0);
      const clusters = await client.listClusters();
      expect(clusters.length).toBeGreaterThan(0);
      expect(clusters[0]?.host_count).toBeGreaterThan(0);
      const ds = await client.listDatastores();
      expect(ds.length).toBeGreaterThan(0);
      expect(ds[0]?.capacity_bytes).toBeGreaterThan(0);
      const details = await client.getClusterDetails(clusters[0]!.moid);
      expect(details.hosts).toHaveLength(clusters[0]!.host_count);
      const hd = await client.getHostDetails(hosts[0]!.moid);
      expect(hd.vms).toHaveLength(hosts[0]!.vm_count);
      const dd = await client.getDatastoreDetails(ds[0]!.moid);
      expect(dd.vms.length).toBe(ds[0]!.vm_count);
    });

    it('reads one VM with its devices', async () => {
      const [vm] = await client.listVms();
      const d = await client.getVmDetails(vm!.moid);
      expect(d.name).toBe(vm!.name);
      expect(d.disks.length).toBeGreaterThan(0);
      expect(d.disks[0]?.file).toMatch(/^\[.+\] /);
      expect(d.controllers.length).toBeGreaterThan(0);
    });

    it('finds by moid and by exact name, and not_found otherwise', async () => {
      const [vm] = await client.listVms();
      expect((await client.resolveOne('vm', vm!.moid)).name).toBe(vm!.name);
      expect((await client.resolveOne('vm', vm!.name)).moid).toBe(vm!.moid);
      const err = await caught(client.resolveOne('vm', 'no-such-vm'));
      expect(err.code).toBe('not_found');
    });

    it('translates faults: unknown moid, invalid power state', async () => {
      const nf = await caught(client.getVmDetails('vm-999999'));
      expect(nf.code).toBe('not_found');
      const on = (await client.listVms()).find((v) => v.power_state === 'poweredOn');
      const bad = await caught(client.powerOn(on!.moid));
      expect(bad.code).toBe('task_failed');
      expect(bad.details?.fault).toBe('InvalidPowerState');
    });

    it('refuses a wrong password with a hint naming the variables, never the password', async () => {
      const secrets: SecretSource = { get: (n) => (n.endsWith('_PASSWORD') ? 'wrong-Secret-123' : 'someone'), knownValues: () => [] };
      const bad = new VsphereClient(sim.target('sim-bad', { credentialPrefix: 'BAD' }), { secrets, keepaliveMs: 0 });
      const err = await caught(bad.listVms());
      expect(err.code).toBe('auth_failed');
      expect(err.details?.fault).toBe('InvalidLogin');
      expect(err.hint).toContain('BAD_USER');
      expect(err.hint).toContain('BAD_PASSWORD');
      expect(JSON.stringify({ m: err.message, h: err.hint, d: err.details })).not.toContain('wrong-Secret-123');
      await bad.close();
    });

    it('logs in again once when the session expired, shared by concurrent calls', async () => {
      await client.listVms();
      const logins = client.stats.byMethod.Login ?? 0;
      const relogins = client.relogins;
      await sim.expireSessions();
      const results = await Promise.all([client.listVms(), client.listHosts(), client.listDatastores()]);
      expect(results[0]).toHaveLength(sim.vmCount);
      expect(client.relogins).toBe(relogins + 1);
      expect(client.stats.byMethod.Login).toBe(logins + 1);
    });

    it('pages or not, as the producer does', async () => {
      const before = client.stats.byMethod.ContinueRetrievePropertiesEx ?? 0;
      await client.connect();
      const all = await retrieveFromView(client.vim, [{ type: 'VirtualMachine', pathSet: ['name'] }], { maxObjects: 5 });
      expect(all).toHaveLength(sim.vmCount);
      expect(new Set(all.map((o) => o.obj.value)).size).toBe(sim.vmCount);
      const pages = (client.stats.byMethod.ContinueRetrievePropertiesEx ?? 0) - before;
      if (factory.capabilities.paging) expect(pages).toBeGreaterThanOrEqual(Math.ceil(sim.vmCount / 5) - 1);
      else expect(pages).toBe(0); // vcsim ignores maxObjects: everything in one answer
    });

    it('power-cycles a VM and sees it in events', async () => {
      const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOn' && !v.template)!;
      const progress: Array<number | undefined> = [];
      await client.powerOff(vm.moid, { onProgress: (p) => progress.push(p) });
      expect(await client.powerState(vm.moid)).toBe('poweredOff');
      expect(progress.at(-1)).toBe(100);
      await client.powerOn(vm.moid, { operationId: 'audit-123' });
      expect(await client.powerState(vm.moid)).toBe('poweredOn');
      const ev = await client.events({ entity: { type: 'VirtualMachine', value: vm.moid }, limit: 20, maxScan: 500 });
      const types = ev.events.map((e) => e.type);
      expect(types).toContain('VmPoweredOffEvent');
      expect(types).toContain('VmPoweredOnEvent');
      const keys = ev.events.map((e) => e.key);
      expect(new Set(keys).size).toBe(keys.length);
      const times = ev.events.map((e) => Date.parse(e.created_at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('filters events by entity name with an RE2 pattern and rejects a bad one', async () => {
      const vm = (await client.listVms())[0]!;
      const ev = await client.events({ entityNameRegex: `^${vm.name}$`, limit: 50, maxScan: 1000 });
      expect(ev.events.length).toBeGreaterThan(0);
      expect(ev.events.every((e) => e.vm?.name === vm.name || e.host?.name === vm.name)).toBe(true);
      expect((await caught(client.events({ entityNameRegex: '(a' }))).code).toBe('invalid_input');
    });

    it('raises when max_scan is hit before the window start', async () => {
      const err = await caught(client.events({ since: new Date(Date.now() - 86_400_000), maxScan: 5, pageSize: 5 }));
      expect(err.code).toBe('invalid_input');
      expect(err.details?.max_scan).toBe(5);
    });

    it('reads task history from the collector or recent tasks, and says which', async () => {
      const res = await client.tasks({ limit: 10 });
      expect(res.source).toBe(factory.capabilities.taskHistoryCollector ? 'history_collector' : 'recent_tasks');
      expect(res.tasks.length).toBeGreaterThan(0);
      expect(res.tasks[0]?.state).toBeTruthy();
    });

    it('reads customization status from events when the api is older than 7.0.2', async () => {
      const vm = (await client.listVms())[0]!;
      const st = await client.customizationStatus(vm.moid);
      const about = await client.about();
      if (about.apiVersion.startsWith('6.')) expect(st.sources).toEqual(['events']);
      expect(st.vm.moid).toBe(vm.moid);
      expect(typeof st.finished).toBe('boolean');
    });

    it('reads VM performance from the perfCounter property', async () => {
      const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOn')!;
      const perf = await client.vmPerformance(vm.moid, { maxSample: 6 });
      expect(client.stats.byMethod.QueryPerfCounter).toBeUndefined();
      expect(perf.samples).toBeGreaterThan(0);
      expect(perf.metrics.cpu_usage_pct?.latest).not.toBeNull();
    });

    it('creates, lists, reverts and removes snapshots', async () => {
      const vm = (await client.listVms())[1]!;
      const a = await client.createSnapshot(vm.moid, { name: 'before-change', description: 'guard' });
      const b = await client.createSnapshot(vm.moid, { name: 'second' });
      expect(a.snapshot).toBeTruthy();
      let list = await client.listSnapshots(vm.moid);
      expect(list.current).toBe(b.snapshot);
      expect(list.flat.map((s) => s.path)).toEqual(['before-change', 'before-change/second']);
      await client.revertToSnapshot(a.snapshot);
      list = await client.listSnapshots(vm.moid);
      expect(list.current).toBe(a.snapshot);
      await client.removeSnapshot(b.snapshot, { removeChildren: false });
      await client.revertToCurrentSnapshot(vm.moid);
      await client.removeAllSnapshots(vm.moid);
      expect((await client.listSnapshots(vm.moid)).tree).toEqual([]);
    });

    it('reconfigures cpu, memory, disks, NICs and ISOs', async () => {
      const vm = (await client.listVms()).find((v) => v.power_state === 'poweredOff') ?? (await client.listVms())[2]!;
      const before = await client.getVmDetails(vm.moid);
      const net = before.nics[0]?.network;
      const host = await client.getHostDetails(before.host!.moid);
      const network = host.networks.find((n) => !n.startsWith('DVSwitch')) ?? host.networks[0]!;
      const ds = before.datastores[0]!.name;
      await client.reconfigure(vm.moid, [
        { kind: 'cpu', numCpus: 2 },
        { kind: 'memory', memoryMb: 64 },
        { kind: 'add_disk', sizeGb: 1 },
        { kind: 'add_nic', networkName: network },
      ]);
      let after = await client.getVmDetails(vm.moid);
      expect(after.num_cpu).toBe(2);
      expect(after.memory_mb).toBe(64);
      expect(after.disks).toHaveLength(before.disks.length + 1);
      expect(after.nics).toHaveLength(before.nics.length + 1);
      expect(net === undefined || typeof net === 'string').toBe(true);
      const added = after.disks.find((d) => !before.disks.some((b) => b.key === d.key))!;
      await client.reconfigure(vm.moid, [{ kind: 'mount_iso', isoPath: `[${ds}] iso/tools.iso` }]);
      after = await client.getVmDetails(vm.moid);
      expect(after.cdroms[0]?.iso).toBe(`[${ds}] iso/tools.iso`);
      await client.reconfigure(vm.moid, [{ kind: 'unmount_iso' }, { kind: 'remove_disk', deviceKey: added.key }]);
      after = await client.getVmDetails(vm.moid);
      expect(after.cdroms[0]?.iso).toBeNull();
      expect(after.disks).toHaveLength(before.disks.length);
      expect((await caught(client.reconfigure(vm.moid, [{ kind: 'add_nic', networkName: 'no-such-net' }]))).code).toBe('not_found');
    });

    it('clones, relocates, detects ambiguity, unregisters and destroys', async () => {
      const vms = await client.listVms();
      const src = vms.find((v) => v.cluster !== null)!;
      const c1 = await client.clone(src.moid, { name: 'twin' });
      // A second folder: an existing VM folder other than the source's, else a new one (vcsim
      // has a single VM folder).
      const otherPath = vms.map((v) => v.folder).find((f) => f !== null && f !== src.folder);
      let otherFolder: string;
      if (otherPath) {
        const leaf = otherPath.split('/').at(-1)!;
        otherFolder = (await client.find('folder', leaf)).find((f) => f.path === otherPath)!.moid;
      } else {
        const vmFolder = (await client.find('folder', 'vm'))[0]!;
        otherFolder = ((await client.vim.invoke('CreateFolder', { type: 'Folder', value: vmFolder.moid }, { name: 'apps' })) as { value: string }).value;
      }
      const c2 = await client.clone(src.moid, { name: 'twin', folder: otherFolder });
      const err = await caught(client.resolveOne('vm', 'twin'));
      expect(err.code).toBe('ambiguous_name');
      const cands = err.details?.candidates as Array<{ moid: string; path: string }>;
      expect(cands.map((c) => c.moid).sort()).toEqual([c1.vm, c2.vm].sort());
      expect(cands.map((c) => c.path)).toContain(`${src.folder}/twin`);
      expect(cands.every((c) => c.path.endsWith('/twin'))).toBe(true);
      expect(err.message).toContain(c1.vm);

      const hosts = await client.listHosts();
      const other = hosts.find((h) => h.cluster?.moid === src.cluster!.moid && h.moid !== src.host!.moid)!;
      await client.relocate(c1.vm, { host: other.moid });
      expect((await client.getVmDetails(c1.vm)).host?.moid).toBe(other.moid);

      await client.unregister(c2.vm);
      expect(await client.find('vm', c2.vm)).toEqual([]);
      await client.powerOff(c1.vm).catch(() => undefined);
      await client.destroy(c1.vm);
      expect((await caught(client.getVmDetails(c1.vm))).code).toBe('not_found');
    });
  });

  describe(`TargetPool against ${factory.name}`, () => {
    let a: SimHandle;
    let b: SimHandle;
    let pool: TargetPool;

    beforeAll(async () => {
      [a, b] = await Promise.all([
        factory.start({ vms: 4, instanceUuid: '22222222-aaaa-4000-8000-00000000000a' }),
        factory.start({ vms: 4, instanceUuid: '22222222-bbbb-4000-8000-00000000000b' }),
      ]);
      pool = new TargetPool(
        [
          a.target('site-a', { credentialPrefix: 'A' }),
          b.target('site-b', { credentialPrefix: 'B' }),
          a.target('site-a-alias', { credentialPrefix: 'A' }),
        ],
        { secrets: prefixed({ A: a, B: b }), keepaliveMs: 0, breaker: { probeTimeoutMs: 3_000, initialBackoffMs: 200, maxBackoffMs: 1_000 } },
      );
    });
    afterAll(async () => {
      await pool?.closeAll();
      await Promise.all([a?.stop(), b?.stop()]);
    });

    it('reports status with shared instances', async () => {
      const rows = await pool.status({ connect: true, timeoutMs: 10_000 });
      expect(rows.map((r) => r.name)).toEqual(['site-a', 'site-b', 'site-a-alias']);
      expect(rows.every((r) => r.connected)).toBe(true);
      expect(rows[0]?.shares_instance_with).toEqual(['site-a-alias']);
      expect(rows[1]?.shares_instance_with).toEqual([]);
      expect(rows[1]?.instance_uuid).toBe(b.instanceUuid);
    });

    it('re-logs in when sessions expire in the middle of a fan-out', async () => {
      let expired: Promise<unknown> | undefined;
      const res = await pool.fanOut(['site-a', 'site-b'], async (c, _t, call) => {
        await c.listVms(call);
        // The first target to get here expires every session on both simulators mid-call.
        expired ??= Promise.all([a.expireSessions(), b.expireSessions()]);
        await expired;
        const [x, y] = await Promise.all([c.listVms(call), c.listHosts(call), c.listDatastores(call)]);
        return { vms: x.length, hosts: y.length };
      });
      expect(res.map((r) => ('ok' in r ? r.ok.vms : r.error.code))).toEqual([a.vmCount, b.vmCount]);
      // Three concurrent calls found the session gone; they shared one re-login per target.
      expect(pool.client('site-a').relogins).toBe(1);
      expect(pool.client('site-b').relogins).toBe(1);
    });

    it('returns a hung target as an error within its deadline while the healthy one answers', async () => {
      await pool.client('site-b').connect();
      await b.hang(true);
      try {
        const started = Date.now();
        const res = await pool.fanOut(['site-a', 'site-b'], (c, _t, call) => c.listVms(call), { timeoutMs: 1_500 });
        const elapsed = Date.now() - started;
        expect(elapsed).toBeLessThan(4_000);
        expect(res[0]).toMatchObject({ target: 'site-a' });
        expect('ok' in res[0]! && res[0].ok.length).toBe(a.vmCount);
        expect(res[1]).toMatchObject({ target: 'site-b', error: { code: 'timeout' } });
        expect('error' in res[1]! && res[1].error.message).toContain('site-b');
        const st = await pool.status();
        expect(st[1]?.last_error?.code).toBe('timeout');
        // The timeout marked it down: the next call is refused at once, with when to retry.
        expect(st[1]?.reachability.state).toBe('down');
        const fast = await pool.fanOut(['site-b'], (c, _t, call) => c.listVms(call), { timeoutMs: 10_000 });
        expect(fast[0]).toMatchObject({ error: { code: 'unreachable', retryable: true, details: { retry_after: expect.any(Number) } } });
      } finally {
        await b.hang(false);
      }
      // A background probe finds it back.
      await expect.poll(async () => (await pool.status())[1]?.reachability.state, { timeout: 20_000 }).toBe('up');
      const again = await pool.fanOut(['site-b'], (c, _t, call) => c.listVms(call), { timeoutMs: 10_000 });
      expect('ok' in again[0]!).toBe(true);
    }, 30_000);

    it('answers an unknown target name as not_found in its slot', async () => {
      const res = await pool.fanOut(['nope', 'site-a'], (c, _t, call) => c.about(call));
      expect(res[0]).toMatchObject({ target: 'nope', error: { code: 'not_found' } });
      expect('ok' in res[1]!).toBe(true);
    });
  });
}

/** A secret source mapping `{PREFIX}_USER/_PASSWORD` to each simulator's own credentials. */
function prefixed(sims: Record<string, SimHandle>): SecretSource {
  return {
    get(name) {
      const m = /^([A-Z0-9]+)_(USER|PASSWORD)$/.exec(name);
      const sim = m ? sims[m[1]!] : undefined;
      if (!sim || !m) return undefined;
      const own = sim.target('x').credentialPrefix;
      return sim.secrets.get(`${own}_${m[2]}`);
    },
    knownValues: () => [],
  };
}

/** Lists with two inventory sizes must cost the same round trips apart from extra pages. */
export function defineRoundTripScaling(factory: SimFactory, small: number, large: number): void {
  it(`lists ${small} and ${large} VMs in the same number of round trips apart from pages`, async () => {
    const costs: Array<{ vms: number; fixed: number; pages: number }> = [];
    for (const vms of [small, large]) {
      const sim = await factory.start({ vms, instanceUuid: `33333333-0000-4000-8000-${String(vms).padStart(12, '0')}` });
      const client = new VsphereClient(sim.target('scale'), { secrets: sim.secrets, keepaliveMs: 0 });
      try {
        await client.connect();
        const before = { ...client.stats.byMethod };
        const total = client.stats.roundTrips;
        const rows = await client.listVms();
        expect(rows).toHaveLength(sim.vmCount);
        const pages = (client.stats.byMethod.ContinueRetrievePropertiesEx ?? 0) - (before.ContinueRetrievePropertiesEx ?? 0);
        costs.push({ vms: sim.vmCount, fixed: client.stats.roundTrips - total - pages, pages });
      } finally {
        await client.close();
        await sim.stop();
      }
    }
    expect(costs[1]!.vms).toBeGreaterThan(costs[0]!.vms);
    expect(costs[0]!.fixed).toBe(3);
    expect(costs[1]!.fixed).toBe(costs[0]!.fixed);
    if (factory.capabilities.paging) expect(costs[1]!.pages).toBeGreaterThan(costs[0]!.pages);
  });
}
