// `zerto-rewind-mcp check` against the simulated lab: the spawned binary passes on a healthy lab,
// and with one subject broken on purpose in each way (closed port, wrong password, untrusted
// certificate) each failure is reported with its fix, the run exits 1, and no secret is printed.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLab, type RunningLab } from '../../../src/lab/lab-mode.js';
import { LAB_CREDENTIALS } from '../../../src/lab/topology.js';
import { collectChecks, runCheck } from '../../../src/commands/check/run-check.js';
import { envSecretSource } from '../../../src/core/secrets.js';
import type { CheckRow } from '../../../src/commands/check/check-result.js';
import { tempDir } from '../../support/harness.js';

const BIN = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const find = (rows: CheckRow[], subject: string, check: string) => rows.find((r) => r.subject === subject && r.check === check);

describe('check command', () => {
  it('passes on the healthy lab through the built binary, as JSON and as a table', async () => {
    const env = { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: `${tempDir('zr-check-')}/audit.jsonl` };
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'check', '--lab', '--json'], { env });
    const report = JSON.parse(stdout) as { ok: boolean; checks: CheckRow[] };
    expect(report.ok).toBe(true);
    const checks = new Set(report.checks.map((c) => `${c.subject}/${c.check}`));
    for (const c of ['dns', 'tcp', 'tls', 'login', 'api_version', 'clock']) expect(checks).toContain(`target lab-vc1/${c}`);
    for (const c of ['audit_log', 'policy', 'dashboard_token', 'restore_dir', 'toolsets']) expect(checks).toContain(`process/${c}`);
    expect(find(report.checks, 'target lab-vc1', 'api_version')?.detail).toMatch(/API \d/);
    expect(find(report.checks, 'target lab-vc1', 'tls')?.detail).toMatch(/sha256 [0-9A-F:]{95}/);
    expect(stdout).not.toContain(LAB_CREDENTIALS.password);

    const table = await promisify(execFile)(process.execPath, [BIN, 'check', '--lab'], { env });
    expect(table.stdout).toMatch(/^SUBJECT\s+CHECK\s+STATUS\s+DETAIL/);
    expect(table.stdout).not.toContain('\x1b['); // not a TTY: no colour
  }, 60_000);

  describe('with one subject broken each way', () => {
    let lab: RunningLab;
    let rows: CheckRow[];
    let code: number;
    let printed = '';

    beforeAll(async () => {
      lab = await startLab({ stateDir: tempDir('zr-check-') });
      const [vc1, vc2] = lab.config.targets;
      vc1!.port = await closedPort(); // closed port
      const env = { ...lab.env, [`${vc2!.credentialPrefix}_PASSWORD`]: 'wrong-Passw0rd' }; // wrong password
      const site = lab.config.app.sites[0]!;
      delete site.caFile; // the lab CA is private: the system CAs do not trust it
      site.verifyTls = true;
      const secrets = envSecretSource(env);
      rows = await collectChecks(lab.config, secrets);
      code = await runCheck({ config: lab.config, secrets, json: false, env: {}, out: { write: (s: string) => (printed += s) } });
    }, 60_000);
    afterAll(() => lab?.stop());

    it('reports the closed port with its fix and skips what needs a connection', () => {
      const tcp = find(rows, 'target lab-vc1', 'tcp')!;
      expect(tcp.status).toBe('fail');
      expect(tcp.detail).toContain('ECONNREFUSED');
      expect(tcp.fix).toMatch(/port \d+ in targets.yaml \(target lab-vc1\)/);
      expect(find(rows, 'target lab-vc1', 'login')?.status).toBe('skip');
    });

    it('reports the wrong password naming the variables, never their values', () => {
      const login = find(rows, 'target lab-vc2', 'login')!;
      expect(login.status).toBe('fail');
      expect(login.detail).toContain('LAB_VC2_PASSWORD set');
      expect(login.fix).toContain('LAB_VC2_PASSWORD');
      expect(find(rows, 'target lab-vc2', 'tls')?.status).toBe('ok');
      expect(printed).not.toContain('wrong-Passw0rd');
      expect(printed).not.toContain(LAB_CREDENTIALS.password);
    });

    it('reports the untrusted certificate with the ca_file fix and its facts', () => {
      const tls = find(rows, `site ${lab.config.app.sites[0]!.name}`, 'tls')!;
      expect(tls.status).toBe('fail');
      expect(tls.detail).toMatch(/signed by a CA this machine does not trust|self-signed/);
      expect(tls.detail).toMatch(/subject localhost, issuer .+, expires \d{4}-\d\d-\d\d/);
      expect(tls.fix).toMatch(/set ca_file in config.json \(site lab-zvm\)/);
      expect(tls.fix).toContain('verify_tls: false');
      expect(find(rows, 'site lab-zvm', 'login')?.status).toBe('fail');
    });

    it('fails an unknown toolset with its fix, as the server would refuse it', async () => {
    const env = { PATH: process.env.PATH ?? '', AUDIT_LOG_PATH: `${tempDir('zr-check-')}/audit.jsonl` };
    const run = await promisify(execFile)(process.execPath, [BIN, 'check', '--lab', '--json', '--toolsets', 'vsphere_reed'], { env }).then(() => undefined, (e: { code: number; stdout: string }) => e);
    expect(run?.code).toBe(1);
    const report = JSON.parse(run!.stdout) as { checks: CheckRow[] };
    expect(find(report.checks, 'process', 'toolsets')).toMatchObject({ status: 'fail', detail: expect.stringContaining("unknown toolset 'vsphere_reed'") });
  }, 60_000);

  it('exits 1 and lists every fix under the table', () => {
      expect(code).toBe(1);
      expect(printed).toContain('What to fix:');
      expect(printed.match(/^ {4}fix: /gm)?.length).toBe(rows.filter((r) => r.fix).length);
      expect(find(rows, 'target lab-vc1', 'clock')?.status).toBe('skip');
      expect(find(rows, 'site lab-zca-azure', 'login')?.status).toBe('ok');
    });
  });
});
