import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfiguration } from '../../src/config/load.js';
import { parseTargets } from '../../src/config/targets.js';
import { parsePolicy } from '../../src/config/policy-file.js';
import { parseAppConfig } from '../../src/config/app-config.js';
import { tempDir } from '../support/harness.js';

const root = new URL('../../', import.meta.url).pathname;

describe('shipped examples', () => {
  it('targets.example.yaml loads', () => {
    const { targets, problems } = parseTargets(readFileSync(join(root, 'targets.example.yaml'), 'utf8'), join(root, 'targets.example.yaml'));
    expect(problems).toEqual([]);
    expect(targets.map((t) => t.name)).toEqual(['prod-vc1', 'dev-vc1', 'edge-esxi']);
    expect(targets[1]).toMatchObject({ insecure: true, dryRun: true });
  });
  it('policy.example.yaml loads', () => {
    const { policy, problems } = parsePolicy(readFileSync(join(root, 'policy.example.yaml'), 'utf8'), 'policy.example.yaml');
    expect(problems).toEqual([]);
    expect(policy!.rules.length).toBeGreaterThan(0);
  });
  it('config.example.json loads; its catalog covers Linux and Windows and every entry names a vm_arg', () => {
    const raw = JSON.parse(readFileSync(join(root, 'config.example.json'), 'utf8')) as unknown;
    const { config, problems } = parseAppConfig(raw, join(root, 'config.example.json'), { SSH_KEY_PASSPHRASE: 'example-passphrase' });
    expect(problems).toEqual([]);
    expect(config!.downstream.map((d) => d.name)).toEqual(['guestfs', 'ssh']);
    expect(config!.downstream[1]!.env.SSH_KEY_PASSPHRASE).toBe('example-passphrase');
    expect(Object.values(config!.inlineCredentials)).toContain('example-passphrase');
    const platforms = new Set(config!.catalog.map((e) => e.platform));
    expect(platforms).toEqual(new Set(['linux', 'windows']));
    for (const e of config!.catalog) expect(e.vm_arg).toMatch(/\S/);
    expect(config!.catalog.map((e) => e.tool)).toEqual(expect.arrayContaining(['ssh/exec', 'ansible/run_playbook', 'winrm/run_command', 'winrm/run_ps', 'powershell/invoke_command', 'smb/write_file']));
  });
});

describe('loading', () => {
  it('a broken targets.yaml lists every problem with file, path and reason', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - name: a\n    host: ""\n    credential_env_prefix: lower\n  - name: a\n    host: h\n    credential_env_prefix: OK\n    colour: blue\n');
    const { problems } = loadConfiguration({ TARGETS_FILE: join(dir, 'targets.yaml') }, dir);
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['targets[0].host', 'targets[0].credential_env_prefix', 'targets[1]', 'targets[1].name']));
    expect(problems.every((p) => p.file.endsWith('targets.yaml'))).toBe(true);
  });

  it('relative paths resolve against the config folder, not the working directory', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'conf'));
    writeFileSync(join(dir, 'conf', 'config.json'), JSON.stringify({ sites: [{ name: 's', url: 'https://zvm.example.test', credential_env_prefix: 'ZVM', ca_file: 'ca.pem' }] }));
    writeFileSync(join(dir, 'conf', 'targets.yaml'), 'targets:\n  - {name: vc, host: vc.example.test, credential_env_prefix: VC, ca_file: certs/vc.pem}\n');
    const elsewhere = tempDir();
    const { config, problems } = loadConfiguration(
      { ZERTO_REWIND_CONFIG: join(dir, 'conf', 'config.json'), TARGETS_FILE: 'targets.yaml', AUDIT_LOG_PATH: 'logs/audit.jsonl' },
      elsewhere,
    );
    expect(problems).toEqual([]);
    expect(config!.settings.targetsFile).toBe(join(dir, 'conf', 'targets.yaml'));
    expect(config!.settings.auditLogPath).toBe(join(dir, 'conf', 'logs', 'audit.jsonl'));
    expect(config!.targets[0]!.caFile).toBe(join(dir, 'conf', 'certs', 'vc.pem'));
    expect(config!.app.sites[0]!.caFile).toBe(join(dir, 'conf', 'ca.pem'));
    // Naming a CA turns verification on (it would verify nothing otherwise), and no warning is due.
    expect(config!.app.sites[0]!.verifyTls).toBe(true);
    expect(config!.warnings.join(' ')).not.toMatch(/not verified/);
    expect(config!.app.restoreDir).toBe(join(dir, 'conf', 'restored'));
  });

  it('without a targets file the server runs Zerto-only and says what needs vSphere', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ sites: [{ name: 's', url: 'https://zvm.example.test', credential_env_prefix: 'ZVM' }] }));
    const { config } = loadConfiguration({ ZERTO_REWIND_CONFIG: join(dir, 'config.json') }, dir);
    expect(config!.targets).toEqual([]);
    expect(config!.notices.join(' ')).toMatch(/Zerto-only.*vSphere tools/);
  });

  it('the zerto-ai-rewind shorthand is accepted with a warning and its password becomes a redacted secret', () => {
    const { config } = { config: parseAppConfig({ zerto_url: 'https://zvm.example.test', username: 'admin', password: 'inline-pw-1' }, 'c.json').config };
    expect(config!.sites[0]).toMatchObject({ name: 'zvm', credentialPrefix: 'ZERTO_REWIND_INLINE' });
    expect(config!.inlineCredentials.ZERTO_REWIND_INLINE_PASSWORD).toBe('inline-pw-1');
    expect(config!.warnings.join(' ')).toMatch(/password is inline/);
    expect(config!.warnings.join(' ')).not.toContain('inline-pw-1');
  });

  it('policy confirmation_ttl_seconds overrides the environment; bad env values are listed', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'targets.yaml'), 'targets:\n  - {name: vc, host: h, credential_env_prefix: VC}\n');
    writeFileSync(join(dir, 'policy.yaml'), 'confirmation_ttl_seconds: 45\n');
    const ok = loadConfiguration({ TARGETS_FILE: join(dir, 'targets.yaml'), POLICY_FILE: join(dir, 'policy.yaml'), CONFIRMATION_TTL_SECONDS: '300' }, dir);
    expect(ok.config!.confirmationTtlSeconds).toBe(45);
    const bad = loadConfiguration({ TARGETS_FILE: join(dir, 'targets.yaml'), ENABLE_DESTRUCTIVE: 'yesplease', WEB_UI_PORT: 'x', LOG_LEVEL: 'verbose' }, dir);
    expect(bad.problems.map((p) => p.path)).toEqual(['ENABLE_DESTRUCTIVE', 'WEB_UI_PORT', 'LOG_LEVEL']);
  });
});
