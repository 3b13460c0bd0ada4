// What a real ZVM does differently (docs/zerto-notes.md, "Against a real ZVM"), through the tools, with a real MCP
// client against the lab: task route refusing a valid token, paged browse, a download link on
// another host, an unknown mount status, and one VM reached through two targets of one vCenter.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'vitest';
import { LAB_VCENTERS } from '../../../src/lab/topology.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';
import { labPerTest, startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { APP01, callsSince, errorOf, mark, ok, ORIGINAL_CONF } from './support.js';

const ALIAS = 'lab-vc1-alias';
const POLICY = `
defaults: {checkpoint: required, approval: single}
targets:
  lab-vc1: {destructive: allow}
  ${ALIAS}: {destructive: allow}
  lab-vc2: {destructive: allow}
`;

// Each test has its own lab (its ZVM's faults and guests), so the tests run at once.
const lab = labPerTest(async () => {
  const h = await startLabHarness({
    policyYaml: POLICY, zvmTaskMs: 50, taskMs: 20, checkpointTimeoutMs: 4_000, env: { ENABLE_DESTRUCTIVE: 'true' },
    // A second targets.yaml entry reaching the same simulated vCenter, claimed by the same Zerto site.
    editConfig: (lab) => {
      const vc1 = lab.config.targets.find((t) => t.name === 'lab-vc1')!;
      lab.config.targets.splice(1, 0, { ...vc1, name: ALIAS });
      lab.config.app.sites.find((s) => s.name === 'lab-zvm')!.vcenterTargets.splice(1, 0, ALIAS);
    },
  });
  await h.client.listTools();
  return h;
});
const zvm = (h: LabHarness) => h.lab.zvms.get('lab-zvm')!;

async function recover(h: LabHarness, args: Record<string, unknown>) {
  const proposal = ok(await h.call('zerto_recover_file', args));
  return h.call('confirm_action', { token: proposal.token });
}

async function checkpoint(h: LabHarness, vm: string, change: string): Promise<string> {
  return ok(await h.call('zerto_create_tagged_checkpoint', { vm, action: 'edit', change_id: change })).tag as string;
}

describe.concurrent('through the tools, against a ZVM that behaves like the evidence', () => {
  it('a tagged checkpoint is confirmed even though the task route refuses a valid token', async ({ expect }) => {
    const h = await lab();
    zvmFaults(zvm(h)).taskRouteRefusesToken();
    const cp = ok(await h.call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'edit', change_id: 'tool-401' }));
    expect(cp.checkpoints.map((c: any) => c.vpg).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
  });

  it('zerto_recover_file finds a file on page 3 of a folder', async ({ expect }) => {
    const h = await lab();
    zvmFaults(zvm(h)).browsePaging(50, 50);
    for (let i = 0; i < 110; i++) h.lab.guests.write(APP01, `/var/log/app/r-${String(i).padStart(3, '0')}.log`, 'x\n');
    h.lab.guests.write(APP01, '/var/log/app/zz-last.log', 'page three\n');
    const tag = await checkpoint(h, 'app-01', 'tool-pages');
    expect(ok(await recover(h, { vm: 'app-01', path: '/var/log/app/zz-last.log', tag })).result.content).toBe('page three\n');
  });

  it('an absolute download link on another host is fetched from the configured origin; nothing reaches that host', async ({ expect }) => {
    const h = await lab();
    const seen: IncomingHttpHeaders[] = [];
    const other: Server = createServer((req, res) => {
      seen.push(req.headers);
      res.end('wrong');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', () => resolve()));
    try {
      zvmFaults(zvm(h)).downloadLinksOn(`http://127.0.0.1:${(other.address() as AddressInfo).port}`);
      const tag = await checkpoint(h, 'app-01', 'tool-link');
      expect(ok(await recover(h, { vm: 'app-01', path: '/etc/app.conf', tag })).result.content).toBe(ORIGINAL_CONF);
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('an unknown mount status is reported with its value when the bounded wait ends', async ({ expect }) => {
    const h = await lab();
    const tag = await checkpoint(h, 'app-01', 'tool-status');
    zvmFaults(zvm(h)).mountedStatus('MountedAndIndexing');
    const e = errorOf(await recover(h, { vm: 'app-01', path: '/etc/app.conf', tag }));
    expect(e.code).toBe('flr_failed');
    expect(e.message).toContain("status 'MountedAndIndexing', which this server does not know");
    expect(e.message).toMatch(/within 4 s/);
    expect(zvm(h).state.liveSessions()).toHaveLength(0);
  });
});

describe.concurrent('one VM reached through two targets of the same vCenter', () => {
  it('list_targets says they share an instance; find_protection, the guard and FLR see one VM', async ({ expect }) => {
    const h = await lab();
    const targets = ok(await h.call('list_targets')).targets as Array<{ name: string; shares_instance_with: string[] }>;
    expect(targets.find((t) => t.name === ALIAS)!.shares_instance_with).toEqual(['lab-vc1']);

    const found = ok(await h.call('zerto_find_protection', { vm: 'app-01.lab.local' }));
    expect(found.vm).toMatchObject({ name: 'app-01', vm_identifier: APP01, target: 'lab-vc1' });
    expect(found.vpgs.map((v: any) => v.name)).toEqual(['vpg-app', 'vpg-app-critical']);

    // The guard through the alias target, with Zerto's VmIdentifier not the inferred one: the
    // by-name verification must recognise the VM by identity, not by target name.
    zvmFaults(zvm(h)).vmIdentifierServerId(LAB_VCENTERS[0]!.instanceUuid, '11111111-2222-3333-4444-555555555555');
    const before = mark(h);
    const snap = await h.call('create_snapshot', { target: ALIAS, vm: 'app-01', name: 'via-alias', change_id: 'alias-1' });
    expect(snap.isError, snap.text).toBe(false);
    expect((snap.data.checkpoint as { status: string }).status).toBe('checkpointed');
    expect(callsSince(h, before, 'zvm:lab-zvm', 'POST /v1/vpgs/:id/checkpoints')).toHaveLength(2);
    zvmFaults(zvm(h)).reset();

    const tag = await checkpoint(h, 'app-01', 'alias-flr');
    expect(ok(await recover(h, { vm: 'app-01', path: '/etc/app.conf', tag })).result.content).toBe(ORIGINAL_CONF);

    // Two genuinely different VMs of one name stay ambiguous.
    expect(errorOf(await h.call('zerto_find_protection', { vm: 'dup-01' })).code).toBe('ambiguous_name');
  });
});
