// The import fences of eslint.config.js, run through ESLint's own API on code that pretends to
// live in each folder: every fence fires on its deliberate violation with its own message, and
// the imports the fences allow (the protocol edge calling the pipeline, the adapters wiring two
// vendors, a type-only import where only types may cross) pass.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED, FORBIDDEN, type FenceCase } from './fixtures/fences.js';

interface Fence { name: string; files: string[]; message: string }
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// The config is plain JavaScript (no types to import statically); its FENCES table is what the rule enforces.
const { FENCES } = (await import(new URL('../../eslint.config.js', import.meta.url).href)) as { FENCES: Fence[] };
let eslint: ESLint;
beforeAll(() => { eslint = new ESLint({ cwd: ROOT }); });

async function fencesFired(c: FenceCase): Promise<string[]> {
  const [result] = await eslint.lintText(c.code, { filePath: `${ROOT}${c.file}` });
  const fired = result!.messages.filter((m) => m.ruleId === 'layers/fences');
  for (const m of fired) {
    const name = /fence '([^']+)'\)$/.exec(m.message)?.[1];
    const fence = FENCES.find((f) => f.name === name);
    expect(fence, m.message).toBeDefined();
    expect(m.message.startsWith(fence!.message)).toBe(true);
  }
  return fired.map((m) => /fence '([^']+)'\)$/.exec(m.message)![1]!).sort();
}

describe('import fences', () => {
  it.each(FORBIDDEN.map((c) => [c.file, c.code.split('\n')[0], c] as const))('%s: %s is refused', async (_f, _c, c) => {
    expect(await fencesFired(c)).toEqual([...c.fences].sort());
  });

  it.each(ALLOWED.map((c) => [c.file, c.code.split('\n')[0], c] as const))('%s: %s passes', async (_f, _c, c) => {
    expect(await fencesFired(c)).toEqual([]);
  });

  it('every fence is shown firing by a fixture', () => {
    const shown = new Set(FORBIDDEN.flatMap((c) => c.fences));
    expect(FENCES.map((f) => f.name).filter((n) => !shown.has(n))).toEqual([]);
  });

  it('every folder of src/ but the composition has a fence of its own', () => {
    const own = (dir: string) => FENCES.some((f) => f.files.some((g) => g.startsWith(`src/${dir}/`)));
    const folders = readdirSync(new URL('../../src/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.filter((d) => d !== 'app' && !own(d))).toEqual([]);
  });
});
