// The catalog state file under stress: two processes adding at once, a truncated file, entries
// that are not valid, and the size cap.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_ADDED, MutatingCatalog, type CatalogEntry } from '../../src/core/catalog.js';
import { FileCatalogStore } from '../../src/state/files/catalog-file-store.js';
import { tempDir } from '../support/harness.js';

const CHILD = fileURLToPath(new URL('../support/catalog-child.mjs', import.meta.url));
const fileCatalog = (builtIn: CatalogEntry[], path: string) => new MutatingCatalog(builtIn, [], new FileCatalogStore(path));
const entry = (tool: string) => ({ tool, vm_arg: 'host', platform: 'any' as const, note: '' });

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('error', reject);
    p.on('exit', (code) => resolve(code ?? -1));
  });
}

describe('catalog state file', () => {
  it('two processes adding to one state folder at once keep every addition', async () => {
    const path = join(tempDir('zr-cat-'), 'zerto-rewind-catalog.json');
    const codes = await Promise.all([run([path, 'a', '25']), run([path, 'b', '25'])]);
    expect(codes).toEqual([0, 0]);
    const tools = (await fileCatalog([], path).list()).map((e) => e.tool);
    expect(tools).toHaveLength(50);
    expect(new Set(tools).size).toBe(50);
  });

  it("an instance sees another instance's addition, and its own save keeps it", async () => {
    const path = join(tempDir('zr-cat-'), 'zerto-rewind-catalog.json');
    const one = fileCatalog([], path);
    const two = fileCatalog([], path);
    await one.add(entry('ssh/exec'));
    await two.add(entry('winrm/run'));
    expect((await one.find('winrm/run'))?.source).toBe('added');
    expect(JSON.parse(readFileSync(path, 'utf8')).added.map((e: { tool: string }) => e.tool)).toEqual(['ssh/exec', 'winrm/run']);
  });

  it('a truncated state file is set aside and reported; startup goes on', async () => {
    const dir = tempDir('zr-cat-');
    const path = join(dir, 'zerto-rewind-catalog.json');
    writeFileSync(path, '{"version":1,"added":[{"tool":"ssh/ex');
    const catalog = fileCatalog([entry('power_off_vm')], path);
    expect((await catalog.list()).map((e) => e.tool)).toEqual(['power_off_vm']);
    expect(catalog.problems.join(' ')).toMatch(/unreadable .*moved it to .*corrupt-/);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).some((f) => f.startsWith('zerto-rewind-catalog.json.corrupt-'))).toBe(true);
    await catalog.add(entry('ssh/exec')); // and the catalog works again
    expect(await fileCatalog([], path).find('ssh/exec')).toBeDefined();
  });

  it('invalid or repeated entries are dropped on load, each reported', async () => {
    const path = join(tempDir('zr-cat-'), 'zerto-rewind-catalog.json');
    writeFileSync(path, JSON.stringify({ version: 1, added: [entry('ok/one'), { tool: '', vm_arg: 'host' }, { tool: 'x', vm_arg: 'not a path!' }, 'junk', entry('ok/one'), { ...entry('extra'), evil: true }] }));
    const catalog = fileCatalog([], path);
    expect((await catalog.list()).map((e) => e.tool)).toEqual(['ok/one']);
    expect(catalog.problems).toHaveLength(5);
  });

  it(`holds at most ${MAX_ADDED} added entries`, async () => {
    const path = join(tempDir('zr-cat-'), 'zerto-rewind-catalog.json');
    writeFileSync(path, JSON.stringify({ version: 1, added: Array.from({ length: MAX_ADDED + 5 }, (_, i) => entry(`t/${i}`)) }));
    const catalog = fileCatalog([], path);
    expect(await catalog.list()).toHaveLength(MAX_ADDED);
    await expect(catalog.add(entry('one/more'))).rejects.toThrow(/limit/);
  });
});
