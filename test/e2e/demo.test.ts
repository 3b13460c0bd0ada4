// `npm run demo` is part of `npm test`: the whole loop through the built binary over stdio.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('demo', () => {
  it('runs the whole loop and recovers the original file', () => {
    const script = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(run.stdout, run.stderr).toContain('DEMO OK');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('identical');
    expect(run.stdout).toMatch(/tag: ai:mcp:zerto-rewind-demo \| lab_write_guest_file \| args=[0-9a-f]+ \| vm=app-01 \| change=demo-\d+ \| \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
  }, 150_000);
});
