// `check --zerto` against the simulated lab: every read route the product uses is called and
// compared with the client's schemas, nothing that changes the ZVM is called, a ZVM whose rows
// lack a member the client needs is named route by route, and the support bundle carries shapes
// with every name and id hashed and no secret.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectZertoProbe } from '../../../src/commands/check/run-check.js';
import type { CheckRow } from '../../../src/commands/check/check-result.js';
import { envSecretSource } from '../../../src/core/secrets.js';
import { LabCallLog } from '../../../src/lab/call-log.js';
import { startLab, type RunningLab } from '../../../src/lab/lab-mode.js';
import { LAB_CREDENTIALS, LAB_ZERTO_CLIENT } from '../../../src/lab/topology.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';
import { tempDir } from '../../support/harness.js';

const BIN = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));
let lab: RunningLab;
const callLog = new LabCallLog();
beforeAll(async () => {
  lab = await startLab({ stateDir: tempDir('zr-probe-'), callLog });
}, 60_000);
afterAll(() => lab?.stop());
afterEach(() => [...lab.zvms.values()].forEach((z) => zvmFaults(z).reset()));

const probe = (bundle?: string) => collectZertoProbe(lab.config, envSecretSource(lab.env), bundle);
const of = (rows: CheckRow[], site: string, check: string) => rows.find((r) => r.subject === `zerto ${site}` && r.check === check);

describe('check --zerto', () => {
  it('calls every read route the product uses, finds the lab\'s answers fit, and changes nothing', async () => {
    const from = callLog.calls.at(-1)?.seq ?? 0;
    const rows = await probe();
    for (const route of ['GET /v1/localsite', 'GET /v1/peersites', 'GET /v1/vms', 'GET /v1/vpgs', 'GET /v1/vpgs/{id}', 'GET /v1/vpgs/{id}/checkpoints',
      'GET /v1/vpgs/{id}/checkpoints/stats', 'GET /v1/vms/{id}/pointsInTime', 'GET /v1/flrs', 'GET /v1/tasks']) {
      expect(of(rows, 'lab-zvm', route)?.status, route).toBe('ok');
    }
    expect(of(rows, 'lab-zvm', 'not probed')?.detail).toContain('POST /v1/flrs');
    const zvmCalls = callLog.calls.filter((c) => c.seq > from && c.source.startsWith('zvm:') && !c.method.includes('/auth/'));
    expect(zvmCalls.length).toBeGreaterThan(10);
    expect(zvmCalls.filter((c) => !c.method.startsWith('GET '))).toEqual([]);
  }, 60_000);

  it('names the member a ZVM left out, route by route, as a warning with what to do', async () => {
    zvmFaults(lab.zvms.get('lab-zvm')!).omitVmMembers('VmIdentifier');
    const rows = await probe();
    const vms = of(rows, 'lab-zvm', 'GET /v1/vms')!;
    expect(vms.status).toBe('warn');
    expect(vms.detail).toMatch(/row 0: VmIdentifier: /);
    expect(vms.fix).toMatch(/--bundle/);
    expect(of(rows, 'lab-zvm', 'GET /v1/vpgs')?.status).toBe('ok');
  }, 60_000);

  it('writes a support bundle of shapes: member names kept, names and ids hashed, no secret', async () => {
    const file = join(tempDir('zr-bundle-'), 'bundle.json');
    const rows = await probe(file);
    expect(rows.find((r) => r.check === 'bundle')?.status).toBe('ok');
    const text = await readFile(file, 'utf8');
    const bundle = JSON.parse(text);
    const vms = bundle.sites.flatMap((s: any) => s.routes).find((r: any) => r.route === 'GET /v1/vms');
    expect(Object.keys(vms.shape.items[0])).toEqual(expect.arrayContaining(['VmIdentifier', 'VmName', 'VpgIdentifier', 'ProtectedSite']));
    expect(vms.shape.items[0].VmName).toMatch(/^h:[0-9a-f]{12}$/);
    for (const secret of [LAB_CREDENTIALS.password, LAB_ZERTO_CLIENT.secret, ...Object.values(lab.env)]) expect(text).not.toContain(secret);
    for (const name of ['lab-zvm', 'app-01', 'vpg-app', 'aaaaaaaa-0000-4000-8000-000000000001', '127.0.0.1']) expect(text).not.toContain(name);
    expect(text).toMatch(/<date 9999-99-99T99:99:99\.999Z>/);
    const again = await probe(file);
    expect(again.find((r) => r.check === 'bundle')).toMatchObject({ status: 'fail', detail: expect.stringContaining('the file exists') });
  }, 60_000);

  it('runs from the built binary: check --zerto --lab --json exits 0', async () => {
    const env = { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: `${tempDir('zr-probe-')}/audit.jsonl` };
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'check', '--zerto', '--lab', '--json'], { env });
    const report = JSON.parse(stdout) as { ok: boolean; checks: CheckRow[] };
    expect(report.ok).toBe(true);
    expect(report.checks.some((c) => c.subject === 'zerto lab-zvm-dr' && c.check === 'GET /v1/vpgs' && c.status === 'ok')).toBe(true);
    expect(stdout).not.toContain(LAB_CREDENTIALS.password);
  }, 60_000);
});
