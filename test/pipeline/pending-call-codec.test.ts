// A proposal's payload as central mode's table keeps it: the tool by name, the arguments and the
// resolution's data as JSON; the state checks (functions, already run) are left out, and a
// proposal naming a tool this instance does not declare is refused when read back.
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/tools/all-tools.js';
import { pendingCallCodec, type PendingCall } from '../../src/pipeline/pending-call.js';

describe('pendingCallCodec', () => {
  const tool = ALL_TOOLS.find((t) => t.name === 'power_off_vm')!;
  const call: PendingCall = {
    tool,
    args: { target: 'lab-vc1', vm: 'web-01' },
    resolution: { targets: [{ name: 'lab-vc1' }] as PendingCall['resolution']['targets'], affected: [], summary: 'power off web-01', checks: [() => undefined] },
  };

  it('writes the tool by name and leaves out the state checks, and reads the same call back through JSON', () => {
    const codec = pendingCallCodec(() => ALL_TOOLS);
    const json = JSON.parse(JSON.stringify(codec.encode(call)));
    expect(json).toEqual({ tool: 'power_off_vm', args: call.args, resolution: { targets: call.resolution.targets, affected: [], summary: 'power off web-01' } });
    const back = codec.decode(json);
    expect(back.tool).toBe(tool);
    expect(back.args).toEqual(call.args);
    expect(back.resolution.checks).toBeUndefined();
  });

  it('refuses a payload naming a tool this instance does not declare', () => {
    const codec = pendingCallCodec(() => ALL_TOOLS.filter((t) => t.name !== 'power_off_vm'));
    expect(() => codec.decode({ tool: 'power_off_vm', args: {}, resolution: { targets: [], affected: [] } })).toThrow(/power_off_vm.*does not declare/);
  });
});
