// get_events and get_tasks: explicit windows, the minutes fallback, filters, and max_scan raising
// as that target's error slot. Checked against the simulator's event and task logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../../../support/lab-harness.js';
import { errorOf } from '../../../support/harness.js';
import { errorSlot, okOf, slots } from './support.js';

let h: LabHarness;
const vc1 = () => h.lab.vcenters.get('lab-vc1')!.model;

interface EventsOk { window: { start: string; end: string }; returned: number; truncated: boolean; scanned: number; events: Array<{ key: number; type: string; created_at: string; user: string | null; vm: { name: string } | null }> }
interface TasksOk { source: string; source_note: string; returned: number; tasks: Array<{ key: string; name: string; state: string; entity: { name: string } | null }> }

beforeAll(async () => {
  h = await startLabHarness();
  await h.client.listTools();
});
afterAll(async () => {
  await h?.close();
});

/** The lab seeds win-app-01's customization two hours before it starts. */
function customizationWindow() {
  const started = vc1().events().find((e) => e.type === 'CustomizationStartedEvent')!.createdMs;
  return { startMs: started - 60_000, endMs: started + 240_000 };
}

describe('get_events', () => {
  it('returns exactly the simulator\'s events inside an explicit window, newest first', async () => {
    const { startMs, endMs } = customizationWindow();
    const r = await h.call('get_events', { target: 'lab-vc1', start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() });
    const ok = okOf<EventsOk>(r, 'lab-vc1');
    const want = vc1().events().filter((e) => e.createdMs >= startMs && e.createdMs <= endMs).map((e) => e.key).reverse();
    expect(want.length).toBeGreaterThanOrEqual(2);
    expect(ok.events.map((e) => e.key)).toEqual(want);
    expect(ok.window).toEqual({ start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() });
    expect(ok.events.map((e) => e.type)).toContain('CustomizationSucceeded');
  });

  it('filters by event_type, entity_name (RE2) and user', async () => {
    const { startMs, endMs } = customizationWindow();
    const base = { target: 'lab-vc1', start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
    const typed = okOf<EventsOk>(await h.call('get_events', { ...base, event_type: 'CustomizationSucceeded' }), 'lab-vc1');
    expect(typed.events.map((e) => e.type)).toEqual(['CustomizationSucceeded']);
    const entity = okOf<EventsOk>(await h.call('get_events', { ...base, entity_name: '^win-app-0[0-9]$' }), 'lab-vc1');
    expect(entity.events.length).toBeGreaterThanOrEqual(2);
    expect(entity.events.every((e) => e.vm?.name === 'win-app-01')).toBe(true);
    const none = okOf<EventsOk>(await h.call('get_events', { ...base, user: 'LAB\\nobody' }), 'lab-vc1');
    expect(none.events).toEqual([]);

    const bad = errorOf(await h.call('get_events', { ...base, entity_name: '(?=win)' }));
    expect(bad.code).toBe('invalid_input');
    expect(bad.message).toContain('entity_name');
  });

  it('falls back to `minutes` before now, and sees this session\'s login on every target', async () => {
    const r = await h.call('get_events', { minutes: 30, event_type: 'UserLoginSessionEvent' });
    expect(slots(r).map((s) => s.target)).toEqual(['lab-vc1', 'lab-vc2']);
    for (const target of ['lab-vc1', 'lab-vc2']) {
      const ok = okOf<EventsOk>(r, target);
      expect(Date.parse(ok.window.end) - Date.parse(ok.window.start)).toBe(30 * 60_000);
      expect(ok.events.length).toBeGreaterThanOrEqual(1);
      expect(ok.events[0]!.user).toMatch(/lab-admin/);
    }
  });

  it('marks a page cut by limit as truncated', async () => {
    const { startMs, endMs } = customizationWindow();
    const ok = okOf<EventsOk & { hint?: string }>(await h.call('get_events', {
      target: 'lab-vc1', start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(), limit: 1,
    }), 'lab-vc1');
    expect(ok).toMatchObject({ returned: 1, truncated: true });
    expect(ok.hint).toContain('newest 1');
  });

  it('raises max_scan as that target\'s error slot instead of returning a partial list', async () => {
    const r = await h.call('get_events', { target: 'all', minutes: 14 * 24 * 60, max_scan: 5 });
    for (const target of ['lab-vc1', 'lab-vc2']) {
      const e = errorSlot(r, target);
      expect(e.code).toBe('invalid_input');
      expect(e.message).toMatch(/without reaching the window start/);
      expect(e.hint).toMatch(/max_scan/);
    }
  });

  it('rejects a window whose start is after its end', async () => {
    const e = errorOf(await h.call('get_events', { start: '2024-02-01T00:00:00Z', end: '2024-01-01T00:00:00Z' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('start');
  });

  it('returns every event of a window larger than one collector page', async () => {
    const startMs = Date.now() - 14 * 86400_000;
    const ok = okOf<EventsOk>(await h.call('get_events', { target: 'lab-vc1', start: new Date(startMs).toISOString(), limit: 1000 }), 'lab-vc1');
    const want = vc1().events().filter((e) => e.createdMs >= startMs).length;
    expect(ok.returned).toBe(want);
  });
});

describe('get_tasks', () => {
  it('reads the TaskHistoryCollector and says so; filters by state and task_id match the simulator', async () => {
    const minutes = 8 * 24 * 60;
    const errors = okOf<TasksOk>(await h.call('get_tasks', { target: 'lab-vc1', minutes, state: 'error' }), 'lab-vc1');
    expect(errors.source).toBe('history_collector');
    expect(errors.source_note).toMatch(/TaskHistoryCollector/);
    expect(errors.tasks.length).toBeGreaterThanOrEqual(1);
    const simErrors = new Set(vc1().tasks().filter((t) => t.state === 'error').map((t) => t.moid));
    for (const t of errors.tasks) {
      expect(t.state).toBe('error');
      expect(simErrors.has(t.key)).toBe(true);
    }

    const one = errors.tasks[0]!;
    const byId = okOf<TasksOk>(await h.call('get_tasks', { target: 'lab-vc1', minutes, task_id: one.key }), 'lab-vc1');
    expect(byId.tasks.map((t) => t.key)).toEqual([one.key]);

    const entity = okOf<TasksOk>(await h.call('get_tasks', { target: 'lab-vc1', minutes, entity_name: `^${one.entity!.name}$` }), 'lab-vc1');
    expect(entity.tasks.length).toBeGreaterThanOrEqual(1);
    expect(entity.tasks.every((t) => t.entity?.name === one.entity!.name)).toBe(true);
  });

  it('raises max_scan as an error slot', async () => {
    const r = await h.call('get_tasks', { target: 'lab-vc2', minutes: 8 * 24 * 60, max_scan: 3 });
    expect(errorSlot(r, 'lab-vc2')).toMatchObject({ code: 'invalid_input' });
    expect(errorSlot(r, 'lab-vc2').message).toMatch(/tasks .* without reaching the window start/);
  });
});
