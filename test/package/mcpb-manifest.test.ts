// manifest.json, the Claude Desktop bundle's manifest, checked without building the bundle (that is
// mcpb-bundle.test.ts, in the `package` project): in step with package.json, every setting mapped
// to a variable the server reads, nothing left as a literal `${user_config.x}` when a user leaves
// a field empty, passwords masked, and the lab on until the user turns it off.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMcpConfigForManifest, v0_2 } from '@anthropic-ai/mcpb';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string; engines: { node: string } };
const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as {
  manifest_version: string; name: string; version: string; license: string;
  server: { type: string; entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  compatibility: { runtimes: { node: string } };
  user_config: Record<string, { type: string; default?: unknown; sensitive?: boolean }>;
};

/** The command Claude Desktop would run, computed by mcpb's own substitution. */
async function launch(userConfig: Record<string, unknown>) {
  const config = await getMcpConfigForManifest({
    manifest: manifest as never, extensionPath: '/ext', systemDirs: { HOME: '/home/u' }, userConfig: userConfig as never, pathSeparator: '/',
  });
  return config as { command: string; args: string[]; env: Record<string, string> };
}

describe('manifest.json (Claude Desktop bundle)', () => {
  it('is a valid manifest in step with package.json', () => {
    const parsed = v0_2.McpbManifestSchema.safeParse(manifest);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    // 0.2: Claude Desktop builds of late 2025 refused 0.3 manifests; 0.2 has every field used here.
    expect(manifest.manifest_version).toBe('0.2');
    expect(manifest).toMatchObject({ name: pkg.name, version: pkg.version, license: pkg.license });
    expect(manifest.server).toMatchObject({ type: 'node', entry_point: 'dist/main.js' });
    expect(manifest.compatibility.runtimes.node).toBe(`${pkg.engines.node}.0`);
  });

  it('with nothing entered, runs the lab and passes no literal placeholder', async () => {
    const cfg = await launch({});
    expect(cfg.command).toBe('node');
    expect(cfg.args).toEqual(['/ext/dist/main.js']);
    expect(cfg.env.ZERTO_REWIND_LAB).toBe('true');
    expect(JSON.stringify(cfg)).not.toContain('${');
    expect(cfg.env.ENABLE_DESTRUCTIVE).toBe('false');
  });

  it('maps the three files, the credentials file and the fixed-prefix credentials to the variables the server reads', async () => {
    const cfg = await launch({
      lab: false, targets_file: '/c/targets.yaml', config_file: '/c/config.json', policy_file: '/c/policy.yaml', credentials_file: '/c/cred.json',
      vcenter_user: 'administrator@vsphere.local', vcenter_password: 'pw-vc', zvm_user: 'zadmin', zvm_password: 'pw-zvm',
    });
    expect(cfg.env).toMatchObject({
      ZERTO_REWIND_LAB: 'false', TARGETS_FILE: '/c/targets.yaml', ZERTO_REWIND_CONFIG: '/c/config.json', POLICY_FILE: '/c/policy.yaml',
      ZERTO_REWIND_CREDENTIALS_FILE: '/c/cred.json', VC_PRIMARY_USER: 'administrator@vsphere.local', VC_PRIMARY_PASSWORD: 'pw-vc',
      ZVM_PRIMARY_USER: 'zadmin', ZVM_PRIMARY_PASSWORD: 'pw-zvm',
    });
    const read = ['src/config/settings.ts', 'src/config/credentials-file.ts', 'src/app/cli.ts', 'src/config/load.ts'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    for (const name of Object.keys(cfg.env).filter((n) => !/_(USER|PASSWORD)$/.test(n))) expect(read, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('masks every password and gives every field a default', () => {
    for (const [key, field] of Object.entries(manifest.user_config)) {
      expect(field.default, key).toBeDefined();
      expect(field.sensitive === true, key).toBe(/password|secret|token/.test(key));
    }
    for (const key of ['targets_file', 'config_file', 'policy_file', 'credentials_file']) expect(manifest.user_config[key]!.type, key).toBe('file');
    expect(manifest.user_config.lab).toMatchObject({ type: 'boolean', default: true });
  });
});
