import { afterEach, describe, expect, it } from 'vitest';
import { resolveDownloadUrl } from '../../src/zerto/client.js';
import { errorBodyText } from '../../src/zerto/wire-errors.js';
import { startLab, thrown, type LabHandle } from './support/lab.js';
import { zvmFaults } from '../../src/lab/zvm/testing/faults.js';

let lab: LabHandle | undefined;
afterEach(async () => {
  await lab?.close();
  lab = undefined;
});

describe('ZVM client over the wire', () => {
  it('parses PascalCase rows and lower-case links', async () => {
    lab = await startLab();
    const rows = await lab.client.listVms({ vmName: 'app-01' });
    expect(rows.map((r) => r.VpgName).sort()).toEqual(['vpg-app', 'vpg-app-critical']);
    expect(rows[0]!.ProtectedSite?.identifier).toBe('5a5a5a5a-1111-4222-8333-944444444444');
    const ctx = await lab.client.siteContext();
    expect(ctx.peers.map((p) => p.name).sort()).toEqual(['lab-zca-azure', 'lab-zvm-dr']);
  });

  it('retries an idempotent GET through transient 5xx answers', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute('GET /v1/vpgs', 2, 503);
    expect(await lab.client.listVpgs()).toHaveLength(7);
    expect(lab.callLog.find('zvm:lab-zvm', 'GET /v1/vpgs')).toHaveLength(3);
  });

  it('does not retry a checkpoint insert after a 5xx (it could insert twice)', async () => {
    lab = await startLab();
    zvmFaults(lab.zvm).failRoute('POST /v1/vpgs/:id/checkpoints', 1, 500);
    const err = await thrown(() => lab!.client.insertTaggedCheckpoint('aaaaaaaa-0000-4000-8000-000000000001', 'x'));
    expect(err.code).toBe('zerto_error');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('HTTP 500');
    expect(err.message).toContain('Simulated failure');
    expect(lab.callLog.find('zvm:lab-zvm', 'POST /v1/vpgs/:id/checkpoints')).toHaveLength(1);
  });

  it('maps a 404 {Message} to not_found with the server text', async () => {
    lab = await startLab();
    const err = await thrown(() => lab!.client.getVpg('no-such-vpg'));
    expect(err.code).toBe('not_found');
    expect(err.message).toContain('VPG with identifier no-such-vpg was not found');
  });

  it('verifies TLS when asked and says how to fix a certificate failure', async () => {
    lab = await startLab();
    const strict = lab.newClient({ LAB_ZVM_USER: 'u', LAB_ZVM_PASSWORD: 'p' }, { verifyTls: true, caFile: undefined });
    const err = await thrown(() => strict.localSite());
    expect(err.code).toBe('unreachable');
    expect(err.hint).toMatch(/ca_file/);
    const lax = lab.newClient({ LAB_ZVM_USER: 'lab-admin@vsphere.local', LAB_ZVM_PASSWORD: 'lab-Passw0rd!' }, { verifyTls: false, caFile: undefined });
    expect((await lax.localSite()).SiteName).toBe('lab-zvm');
  });

  it('reports an unreachable site as unreachable', async () => {
    lab = await startLab();
    const url = lab.zvm.url;
    await lab.zvm.close();
    const err = await thrown(() => lab!.newClient({ LAB_ZVM_USER: 'u', LAB_ZVM_PASSWORD: 'p' }).localSite());
    expect(err.code).toBe('unreachable');
    expect(err.message).toContain(new URL(url).origin);
  });

  it('bounds every /v1 call with a timeout', async () => {
    lab = await startLab();
    const impatient = lab.newClient({ LAB_ZVM_USER: 'lab-admin@vsphere.local', LAB_ZVM_PASSWORD: 'lab-Passw0rd!' }, { requestTimeoutMs: 300 });
    await impatient.localSite();
    zvmFaults(lab.zvm).delayRoute('GET /v1/localsite', 2000);
    const started = Date.now();
    const err = await thrown(() => impatient.localSite());
    expect(err.code).toBe('timeout');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('/v1/localsite');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('honours an aborted signal', async () => {
    lab = await startLab();
    const ac = new AbortController();
    ac.abort();
    expect((await thrown(() => lab!.client.listVpgs(ac.signal))).code).toBe('cancelled');
  });

  it('accepts a FLR session as an object or a one-element array', async () => {
    lab = await startLab();
    const cps = await lab.client.listCheckpoints('aaaaaaaa-0000-4000-8000-000000000001');
    const id = await lab.client.mountFlr({ vpgId: 'aaaaaaaa-0000-4000-8000-000000000001', vmId: '4f3c1a2e-7d1b-4c5e-9a10-1b2c3d4e5f01.vm-101', checkpointId: cps[0]!.CheckpointIdentifier });
    expect((await lab.client.getFlrSession(id))?.FlrSessionIdentifier).toBe(id);
    zvmFaults(lab.zvm).flrSessionShape('object');
    expect((await lab.client.getFlrSession(id))?.FlrSessionIdentifier).toBe(id);
    await lab.client.unmountFlr(id);
  });
});

describe('wire helpers', () => {
  it('reads every plausible error body shape', () => {
    const j = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
    expect(errorBodyText(j({ Message: 'bad id' }), 'application/json')).toBe('bad id');
    expect(errorBodyText(j({ message: 'lower' }), 'application/json')).toBe('lower');
    expect(errorBodyText(j({ Message: 'An error has occurred.', ExceptionMessage: 'VPG is locked' }), undefined)).toBe('An error has occurred. - VPG is locked');
    expect(errorBodyText(j({ error: 'invalid_grant', error_description: 'Invalid user credentials' }), 'application/json')).toBe('Invalid user credentials');
    expect(errorBodyText(j({ title: 'One or more validation errors occurred.', errors: { checkpointName: ['required'] } }), 'application/problem+json')).toBe('One or more validation errors occurred. - checkpointName: required');
    expect(errorBodyText(j('plain json string'), 'application/json')).toBe('plain json string');
    expect(errorBodyText(Buffer.from('<html><body><h1>502 Bad Gateway</h1></body></html>'), 'text/html')).toBe('502 Bad Gateway');
    expect(errorBodyText(Buffer.alloc(0), undefined)).toBeUndefined();
  });

  it('resolves relative and absolute download links', () => {
    expect(resolveDownloadUrl('https://zvm:443', 'v1/downloads/a.b')).toBe('https://zvm/v1/downloads/a.b');
    expect(resolveDownloadUrl('https://zvm', '/v1/downloads/a.b')).toBe('https://zvm/v1/downloads/a.b');
    expect(resolveDownloadUrl('https://zvm', 'https://other:8443/x')).toBe('https://other:8443/x');
  });
});
