// The lab call log is a ring buffer: a long `--lab` session keeps only the newest calls.

import { describe, expect, it } from 'vitest';
import { LabCallLog } from '../../src/lab/call-log.js';

describe('lab call log', () => {
  it('keeps the newest `capacity` calls in order, with seq still counting every call', () => {
    const log = new LabCallLog(3);
    for (const m of ['A', 'B', 'C', 'D', 'E']) log.record('vcenter:x', m);
    expect(log.calls.map((c) => [c.seq, c.method])).toEqual([[3, 'C'], [4, 'D'], [5, 'E']]);
    expect(log.dropped).toBe(2);
    expect(log.find('vcenter:x', /^[AB]$/)).toEqual([]);
    expect(log.find('vcenter:x', 'E')).toHaveLength(1);
  });

  it('stays at its capacity however many calls it records', () => {
    const log = new LabCallLog(100);
    for (let i = 0; i < 10_000; i++) log.record('zvm:a', 'GET /v1/vpgs', String(i));
    expect(log.calls).toHaveLength(100);
    expect(log.calls[0]!.subject).toBe('9900');
    expect(log.calls.at(-1)!.seq).toBe(10_000);
  });

  it('clear empties it without resetting seq (order across simulators stays monotonic)', () => {
    const log = new LabCallLog(2);
    log.record('a', 'X');
    log.clear();
    expect(log.calls).toEqual([]);
    log.record('a', 'Y');
    expect(log.calls).toMatchObject([{ seq: 2, method: 'Y' }]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LabCallLog(0)).toThrow(/positive integer/);
  });
});
