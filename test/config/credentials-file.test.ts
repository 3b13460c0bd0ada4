// ZERTO_REWIND_CREDENTIALS_FILE: the per-prefix credentials as one private file. A file others can
// read is refused before the server speaks MCP, with the chmod that fixes it; its values reach the
// vSphere and Zerto clients through the one secret source, so they are redacted like variables.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCredentialsFile, withFileCredentials } from '../../src/config/credentials-file.js';
import { loadConfiguration } from '../../src/config/load.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { tempDir } from '../support/harness.js';
import { configureServerForLab, startOutsideServer, type OutsideServer } from '../support/lab-outside.js';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const CREDENTIAL = /_(USER|PASSWORD|CLIENT_SECRET)$/;

function writeFile(dir: string, body: unknown, mode: number): string {
  const file = join(dir, 'credentials.json');
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  chmodSync(file, mode);
  return file;
}

describe('credentials file: reading it', () => {
  it('a private file gives its credential variables', () => {
    const file = writeFile(tempDir(), { VC_PROD1_USER: 'admin', VC_PROD1_PASSWORD: 'pw-file-1' }, 0o600);
    expect(loadCredentialsFile(file)).toEqual({ values: { VC_PROD1_USER: 'admin', VC_PROD1_PASSWORD: 'pw-file-1' }, problems: [] });
  });

  it.each([0o644, 0o640, 0o604])('mode 0%s is refused with the chmod that fixes it, the secret unread', (mode) => {
    const file = writeFile(tempDir(), { VC_PROD1_PASSWORD: 'pw-world-readable' }, mode);
    const { values, problems } = loadCredentialsFile(file);
    expect(values).toEqual({});
    expect(problems).toHaveLength(1);
    expect(problems[0]!.reason).toContain(`chmod 600 '${file}'`);
    expect(JSON.stringify(problems)).not.toContain('pw-world-readable');
  });

  it('the mode is not checked on Windows, which has no POSIX modes', () => {
    const file = writeFile(tempDir(), { VC_PROD1_PASSWORD: 'pw-win' }, 0o644);
    expect(loadCredentialsFile(file, { platform: 'win32' }).values).toEqual({ VC_PROD1_PASSWORD: 'pw-win' });
  });

  it('broken JSON, other settings and empty values are problems that never quote a value', () => {
    const dir = tempDir();
    const broken = loadCredentialsFile(writeFile(dir, '{"VC_PROD1_PASSWORD": "pw-broken-json",', 0o600));
    expect(broken.problems[0]!.reason).toMatch(/^not valid JSON/);
    expect(JSON.stringify(broken)).not.toContain('pw-broken-json');
    const wrong = loadCredentialsFile(writeFile(dir, { TARGETS_FILE: '/etc/x', VC_PROD1_PASSWORD: '', VC_PROD1_USER: 7 }, 0o600));
    expect(wrong.values).toEqual({});
    expect(wrong.problems.map((p) => p.path).sort()).toEqual(['TARGETS_FILE', 'VC_PROD1_PASSWORD', 'VC_PROD1_USER']);
    expect(loadCredentialsFile(writeFile(dir, ['x'], 0o600)).problems[0]!.reason).toMatch(/JSON object/);
  });

  it('a variable set for the process wins over the file, a blank one does not', () => {
    const merged = withFileCredentials({ VC_A_PASSWORD: 'from-env', VC_B_PASSWORD: '', PATH: '/bin' }, { VC_A_PASSWORD: 'from-file', VC_B_PASSWORD: 'file-b', VC_C_USER: 'c' });
    expect(merged).toEqual({ VC_A_PASSWORD: 'from-env', VC_B_PASSWORD: 'file-b', VC_C_USER: 'c', PATH: '/bin' });
    // The one secret source redacts what came from the file.
    expect(envSecretSource(merged).knownValues()).toEqual(expect.arrayContaining(['from-env', 'file-b']));
  });

  it('loadConfiguration resolves the path against the config folder and collects its problem with the others', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ sites: [{ name: 's', url: 'https://zvm.example', credential_env_prefix: 'ZVM_S' }] }));
    writeFile(dir, { ZVM_S_USER: 'u', ZVM_S_PASSWORD: 'pw-conf' }, 0o600);
    const ok = loadConfiguration({ ZERTO_REWIND_CONFIG: join(dir, 'config.json'), ZERTO_REWIND_CREDENTIALS_FILE: 'credentials.json' }, '/');
    expect(ok.problems).toEqual([]);
    expect(ok.config!.fileCredentials).toEqual({ ZVM_S_USER: 'u', ZVM_S_PASSWORD: 'pw-conf' });
    chmodSync(join(dir, 'credentials.json'), 0o644);
    const refused = loadConfiguration({ ZERTO_REWIND_CONFIG: join(dir, 'config.json'), ZERTO_REWIND_CREDENTIALS_FILE: 'credentials.json' }, '/');
    expect(refused.config).toBeUndefined();
    expect(refused.problems).toEqual([expect.objectContaining({ file: join(dir, 'credentials.json'), reason: expect.stringContaining('chmod 600') })]);
  });
});

describe('credentials file: the shipped server', () => {
  let lab: TestLab | undefined;
  let server: OutsideServer | undefined;
  afterEach(async () => {
    await server?.close();
    await lab?.stop();
    server = undefined;
    lab = undefined;
  });

  it('refuses to start on a file others can read, saying the fix, before speaking MCP', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - { name: vc1, host: vc.example, credential_env_prefix: VC1 }\n');
    const file = writeFile(dir, { VC1_USER: 'u', VC1_PASSWORD: 'pw-never-printed' }, 0o644);
    const run = spawnSync(process.execPath, [BIN], {
      cwd: dir, input: '', encoding: 'utf8', timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', TARGETS_FILE: join(dir, 'targets.yaml'), ZERTO_REWIND_CREDENTIALS_FILE: file, AUDIT_LOG_PATH: join(dir, 'audit.jsonl') },
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`chmod 600 '${file}'`);
    expect(run.stderr).not.toContain('pw-never-printed');
  }, 90_000);

  it('logs in to vCenter and the ZVM with credentials only the file holds, and never shows them', async () => {
    lab = await startLab();
    const dir = tempDir('zr-cred-file-');
    const cfg = configureServerForLab(lab, dir);
    const fromFile = Object.fromEntries(Object.entries(cfg.env).filter(([k]) => CREDENTIAL.test(k)));
    expect(Object.keys(fromFile).length).toBeGreaterThanOrEqual(4);
    for (const k of Object.keys(fromFile)) delete cfg.env[k];
    cfg.env.ZERTO_REWIND_CREDENTIALS_FILE = writeFile(dir, fromFile, 0o600);
    server = await startOutsideServer(cfg);
    const vms = await server.client.callTool({ name: 'list_vms', arguments: { target: 'all' } });
    expect(vms.isError).toBeFalsy();
    const found = await server.client.callTool({ name: 'zerto_find_protection', arguments: { vm: 'app-01' } });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    const passwords = Object.entries(fromFile).filter(([k]) => !k.endsWith('_USER')).map(([, v]) => v);
    for (const text of [JSON.stringify(vms), JSON.stringify(found), server.stderr()]) {
      for (const p of passwords) expect(text).not.toContain(p);
    }
  }, 120_000);
});
