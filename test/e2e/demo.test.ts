// `npm run demo` is part of `npm test`: the whole loop through the built binary over stdio, the
// bad write going through the gateway to the real filesystem MCP server.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('demo', () => {
  it('runs the whole loop and undo_change puts the original file back in the guest', () => {
    const script = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));
    const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    expect(run.stdout, run.stderr).toContain('DEMO OK');
    expect(run.status).toBe(0);
    // The undo's one item is the file, put back from the checkpoint and read back in the guest.
    expect(run.stdout).toMatch(/- put "\/etc\/app.conf" of VM "app-01" back as it was at the pinned checkpoint, through "guestfs" \[run; from checkpoint\]/);
    expect(run.stdout).toMatch(/done: put "\/etc\/app.conf"/);
    const [, recovered, original] = /sha256 ([0-9a-f]{64}) = ([0-9a-f]{64}) \(the original\)/.exec(run.stdout) ?? [];
    expect(recovered).toBeDefined();
    expect(recovered).toBe(original);
    // The checkpoint was pinned by the gateway, before the write was forwarded.
    expect(run.stdout).toMatch(/\[zerto-rewind\] Pinned checkpoint '[^']+' on 2 VPG\(s\) before the change\./);
    expect(run.stdout).toMatch(/tag: ai-[a-z2-7]{10} \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ mcp:zerto-rewind-demo \| guestfs__write_file \| args=[0-9a-f]+ \| vm=app-01 \| change=demo-\d+/);
  }, 150_000);
});
