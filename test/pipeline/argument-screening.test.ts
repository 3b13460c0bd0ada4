// Bad input is `invalid_input` with a clear message, never `internal`: dates that do not exist or
// overflow, lone surrogates, and arguments nested thousands of levels deep (each refusal audited).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { errorOf } from '../support/harness.js';
import { isCalendarTime } from '../../src/tools/args.js';

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('argument screening through a real client', () => {
  it.each([
    ['list_vms', { created_after: '-271821-04-20T00:00:00Z' }],
    ['list_vms', { created_before: '2024-02-30' }],
    ['get_events', { start: '+275760-09-13T00:00:00Z' }],
    ['get_events', { end: '2023-02-29T10:00:00Z' }],
    ['get_tasks', { start: '2024-13-01' }],
  ])('%s %j is invalid_input', async (tool, args) => {
    const e = errorOf(await h.call(tool, args));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/ISO-8601/);
  });

  it('real dates still pass, including leap days and offsets', async () => {
    const r = await h.call('list_vms', { created_after: '2024-02-29', created_before: '2030-01-01T00:00:00+02:00' });
    expect(r.isError, r.text).toBe(false);
    for (const ok of ['2024-02-29', '2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123+05:30', '2024-05-01T12:00']) expect(isCalendarTime(ok)).toBe(true);
  });

  it('a lone surrogate in a value or a key is invalid_input, naming the field', async () => {
    const e = errorOf(await h.call('get_vm_details', { target: 'lab-vc1', vm: 'web-\uD800' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/vm: contains a lone UTF-16 surrogate/);
    const k = errorOf(await h.call('list_vms', { ['x\uDC00']: 1 }));
    expect(k.code).toBe('invalid_input');
  });

  it('a 5,000-level nested argument is invalid_input, and the refusal is audited', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    const e = errorOf(await h.call('power_off_vm', { target: 'lab-vc1', vm: 'web-01', deep }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/nested deeper than 32 levels/);
    const line = h.auditLines().filter((l) => l.tool === 'power_off_vm').at(-1)!;
    expect(line).toMatchObject({ phase: 'failed', decision: null, detail: { code: 'invalid_input' } });
    expect(line.args).toEqual({ capped: true, too_deep: true });
  });
});
