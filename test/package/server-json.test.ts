// server.json is what the MCP Registry (and through it VS Code's @mcp gallery) lists: it must
// validate against the schema it names, name the same server as package.json's mcpName (the
// registry's proof of npm ownership), and carry the version being published, since a published
// npm version can never be replaced.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

const pkg = readJson(join(ROOT, 'package.json')) as { name: string; version: string; mcpName: string; repository: { url: string }; homepage: string; license: string; author?: string; keywords?: string[] };
const server = readJson(join(ROOT, 'server.json')) as {
  $schema: string; name: string; version: string; repository: { url: string; source: string };
  packages: Array<{ registryType: string; identifier: string; version: string; transport: { type: string }; environmentVariables: Array<{ name: string; isSecret?: boolean }> }>;
  remotes?: Array<{ type: string; url: string; variables?: Record<string, unknown> }>;
};
const schema = readJson(join(ROOT, 'test/package/schemas/server.schema.2025-12-11.json'));

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}

describe('server.json (MCP Registry entry)', () => {
  it('names the 2025-12-11 schema and validates against it', () => {
    expect(server.$schema).toBe(SCHEMA_URL);
    expect(schema.$id).toBe(SCHEMA_URL);
    const validate = validator();
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('the kept schema still rejects what the registry rejects (the check is live)', () => {
    const validate = validator();
    expect(validate({ ...server, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...server, name: 'no-namespace' })).toBe(false);
    expect(validate({ ...server, packages: [{ ...server.packages[0], version: 'latest' }] })).toBe(false);
  });

  it('is in step with package.json: name, version, repository', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    const npm = server.packages.find((p) => p.registryType === 'npm');
    expect(npm).toMatchObject({ identifier: pkg.name, version: pkg.version, transport: { type: 'stdio' } });
    expect(pkg.repository.url).toBe(`git+${server.repository.url}.git`);
    expect(pkg.homepage.startsWith(server.repository.url)).toBe(true);
    // io.github.<owner>/...: the registry checks the publisher's GitHub identity against <owner>.
    const owner = /^io\.github\.([^/]+)\//.exec(server.name)?.[1];
    expect(server.repository.url).toBe(`https://github.com/${owner}/zerto-rewind-mcp`);
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.author).toBeTruthy();
    expect(pkg.keywords).toEqual(expect.arrayContaining(['mcp', 'vsphere', 'zerto']));
  });

  it('describes only variables the server reads, and marks the secret ones', () => {
    const vars = server.packages[0]!.environmentVariables;
    const src = ['src/config/settings.ts', 'src/config/credentials-file.ts'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
    for (const v of vars) expect(src, `${v.name} is not read by the server`).toContain(v.name);
    const secret = vars.filter((v) => v.isSecret).map((v) => v.name);
    expect(secret).toEqual(vars.filter((v) => /TOKEN|PASSWORD|SECRET/.test(v.name)).map((v) => v.name));
    expect(secret).toContain('WEB_UI_TOKEN');
  });

  it('offers HTTP mode as a remote template ending in the /mcp endpoint', () => {
    const remote = server.remotes?.find((r) => r.type === 'streamable-http');
    expect(remote?.url).toMatch(/^https:\/\/\{host\}\/mcp$/);
    expect(Object.keys(remote?.variables ?? {})).toEqual(['host']);
  });

  it('ships the Apache-2.0 license text that package.json names', () => {
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004/);
    expect(license).toContain('END OF TERMS AND CONDITIONS');
  });
});
