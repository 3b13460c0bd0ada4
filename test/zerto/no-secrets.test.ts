// No bearer token, client secret or password may appear in any error an operation throws (message,
// hint, details, cause chain, inspected form) or in anything the client logs.

import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { LAB_CREDENTIALS, labVmIdentifier } from '../../src/lab/topology.js';
import { findProtection } from '../../src/zerto/find-protection.js';
import { pinTaggedCheckpoint } from '../../src/zerto/pin-checkpoint.js';
import { recoverFile } from '../../src/zerto/recover-file.js';
import { CLIENT_SECRET, startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

function everything(err: unknown): string {
  const parts: string[] = [inspect(err, { depth: 10, showHidden: true })];
  let e: unknown = err;
  while (e) {
    const o = e as { message?: string; hint?: string; details?: unknown; stack?: string; cause?: unknown };
    parts.push(String(o.message), String(o.hint), JSON.stringify(o.details ?? null), String(o.stack));
    e = o.cause;
  }
  return parts.join('\n');
}

function assertClean(text: string, secrets: string[]): void {
  for (const s of secrets) expect(text.includes(s), `leaked ${s.slice(0, 6)}...`).toBe(false);
  expect(text).not.toMatch(/Bearer\s+eyJ/);
}

describe('secrets stay out of errors and logs', () => {
  it('across auth failures, wire failures and operation failures', async () => {
    lab = await startLab();
    const errors: unknown[] = [];
    // Refused password and refused client secret.
    errors.push(await thrown(() => lab!.newClient({ LAB_ZVM_USER: LAB_CREDENTIALS.user, LAB_ZVM_PASSWORD: 'Wr0ng-Passw0rd!' }).localSite()));
    errors.push(await thrown(() => lab!.newClient({ LAB_ZVM_CLIENT_SECRET: 'wrong-secret-value-1' }, { clientId: 'rewind-tool' }).localSite()));
    // A ZVM whose error body echoes the secrets (a misbehaving proxy): still redacted.
    await lab.client.localSite();
    const token = [...lab.zvm.state.tokens.keys()][0]!;
    zvmFaults(lab.zvm).failRoute('GET /v1/vpgs', 3, 500, `upstream said: Authorization: Bearer ${token} password=${LAB_CREDENTIALS.password}`);
    errors.push(await thrown(() => lab!.client.listVpgs()));
    // Operation failures after a successful login.
    errors.push(await thrown(() => findProtection(lab!.client, 'no-such-vm')));
    zvmFaults(lab.zvm).lateCheckpoint('never');
    errors.push(await thrown(() => pinTaggedCheckpoint(lab!.client, { vpgs: ['aaaaaaaa-0000-4000-8000-000000000001'], agent: 'a', action: 'b', vm: 'app-01', changeId: 'c', timeoutMs: 400, pollMs: 50 })));
    zvmFaults(lab.zvm).reset();
    zvmFaults(lab.zvm).failDownload(5);
    const found = await findProtection(lab.client, labVmIdentifier('lab-vc1', 'vm-101'));
    const pinned = await pinTaggedCheckpoint(lab.client, { vpgs: found.vpgs, agent: 'a', action: 'b', vm: 'app-01', changeId: 'd', pollMs: 40 });
    errors.push(await thrown(() => recoverFile(lab!.client, { protection: found, checkpoint: { tag: pinned.tag }, path: '/etc/app.conf', restoreDir: lab!.tmp, pollMs: 40 })));
    // A client_credentials client that works, then fails.
    const cc = lab.newClient({ LAB_ZVM_CLIENT_SECRET: CLIENT_SECRET }, { clientId: 'rewind-tool' });
    await cc.localSite();
    errors.push(await thrown(() => cc.getVpg('missing')));

    const secrets = [LAB_CREDENTIALS.password, CLIENT_SECRET, 'Wr0ng-Passw0rd!', 'wrong-secret-value-1', ...lab.zvm.state.tokens.keys()];
    expect(errors).toHaveLength(7);
    for (const err of errors) assertClean(everything(err), secrets);
    expect(everything(errors[2])).toContain('[REDACTED]');
    // Logs: method, route, status only. Never headers, bodies or tokens.
    expect(lab.logs.length).toBeGreaterThan(10);
    assertClean(JSON.stringify(lab.logs), secrets);
    expect(JSON.stringify(lab.logs)).not.toMatch(/authorization/i);
  });
});
