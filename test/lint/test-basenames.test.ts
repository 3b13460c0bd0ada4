// A red test names its file, and the file's name alone should say which module or suite failed:
// no two test files under test/ share a basename (test/central/ and the other suites by kind too).
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('test file names', () => {
  it('no basename of a *.test.ts file repeats under test/', () => {
    const files = readdirSync(new URL('../', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts') && !f.split(/[\\/]/).includes('node_modules'));
    const seen = new Map<string, string[]>();
    for (const f of files) seen.set(basename(f), [...(seen.get(basename(f)) ?? []), f]);
    expect(files.length).toBeGreaterThan(100);
    expect([...seen.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });
});
