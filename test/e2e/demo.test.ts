// `npm run demo` is part of `npm test`: the whole loop through the built binary over stdio, the
// bad write going through the gateway to the real filesystem MCP server.
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
    const [, recovered, original] = /sha256 ([0-9a-f]{64}) = ([0-9a-f]{64})/.exec(run.stdout) ?? [];
    expect(recovered).toBeDefined();
    expect(recovered).toBe(original);
    // The checkpoint was pinned by the gateway, before the write was forwarded.
    expect(run.stdout).toMatch(/\[zerto-rewind\] Pinned checkpoint '[^']+' on 2 VPG\(s\) before the change\./);
    expect(run.stdout).toMatch(/tag: ai-[a-z2-7]{10} \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ mcp:zerto-rewind-demo \| guestfs__write_file \| args=[0-9a-f]+ \| vm=app-01 \| change=demo-\d+/);
  }, 150_000);
});
