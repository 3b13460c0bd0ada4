// The systemd unit as systemd itself reads it: `systemd-analyze verify` reports no unknown or
// malformed directive, and the offline security review rates it OK. In the `package` project
// (test:full, CI on Linux): it needs systemd-analyze, and fails saying so when it is missing.
import { spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/harness.js';

const UNIT = fileURLToPath(new URL('../../deploy/zerto-rewind-mcp.service', import.meta.url));

function analyze(args: string[]) {
  const r = spawnSync('systemd-analyze', args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw new Error(`systemd-analyze is needed for this test (Debian: apt-get install systemd; scripts/install-test-deps does): ${String(r.error)}`);
  return r;
}

describe('deploy/zerto-rewind-mcp.service under systemd-analyze', () => {
  it('verifies without a warning and rates OK in the security review', () => {
    // A copy: verify also checks that ExecStart's binary exists, which is the admin's /opt path.
    const copy = join(tempDir('zr-unit-'), 'zerto-rewind-mcp.service');
    copyFileSync(UNIT, copy);
    const verify = analyze(['verify', copy]);
    expect(verify.stderr.split('\n').filter((l) => l.includes(copy) && !l.includes('/opt/zerto-rewind-mcp/dist/main.js'))).toEqual([]);
    const security = analyze(['security', '--offline=true', copy]);
    const level = /Overall exposure level for \S+: ([\d.]+)/.exec(security.stdout)?.[1];
    expect(Number(level), security.stdout.slice(-400)).toBeLessThan(3);
  }, 120_000);
});
