// Event post-processing that every producer needs: newest-first ordering, de-duplication on key
// (vcsim's rotated pages repeat events), and the linear-time regex engine for model input.

import { describe, expect, it } from 'vitest';
import { compileSafeRegex, eventRow, sortAndDedupe } from '../../src/vsphere/events.js';
import { compareApiVersion } from '../../src/vsphere/types.js';
import { supportsCustomizationInfo } from '../../src/vsphere/customization.js';

describe('events', () => {
  it('sorts newest first and drops repeated keys', () => {
    const rows = [
      { key: 3, created_at: '2024-01-01T00:00:03Z' },
      { key: 1, created_at: '2024-01-01T00:00:01Z' },
      { key: 3, created_at: '2024-01-01T00:00:03Z' },
      { key: 2, created_at: '2024-01-01T00:00:03Z' },
    ];
    expect(sortAndDedupe(rows).map((r) => r.key)).toEqual([3, 2, 1]);
  });

  it('names EventEx rows by their eventTypeId and keeps entity arguments', () => {
    const row = eventRow({
      _type: 'EventEx',
      key: '9',
      eventTypeId: 'com.vmware.vc.guestOperations.GuestOperation',
      createdTime: '2024-01-01T00:00:00Z',
      userName: 'VSPHERE.LOCAL\\admin',
      vm: { name: 'web-01', vm: { type: 'VirtualMachine', value: 'vm-7' } },
    });
    expect(row).toMatchObject({ key: 9, type: 'com.vmware.vc.guestOperations.GuestOperation', vm: { name: 'web-01', moid: 'vm-7' }, host: null });
  });

  it('runs model-supplied patterns in linear time', () => {
    const re = compileSafeRegex('(a+)+$', 'entity_name');
    const evil = 'a'.repeat(50_000) + 'b';
    const t0 = performance.now();
    expect(re.matcher(evil).find()).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(() => compileSafeRegex('(?=x)', 'entity_name')).toThrow(/RE2/);
  });
});

describe('api versions', () => {
  it('compares dotted versions numerically and gates customizationInfo at 7.0.2', () => {
    expect(compareApiVersion('7.0.10', '7.0.2')).toBeGreaterThan(0);
    expect(compareApiVersion('8.0', '8.0.0.0')).toBe(0);
    expect(supportsCustomizationInfo('6.5')).toBe(false);
    expect(supportsCustomizationInfo('7.0.1.0')).toBe(false);
    expect(supportsCustomizationInfo('7.0.2.0')).toBe(true);
    expect(supportsCustomizationInfo('8.0.2.0')).toBe(true);
  });
});

describe('customization status folds guest info and events', () => {
  it('a failure event newer than a stale SUCCEEDED guest status wins; IDLE falls back to events; a newer guest status wins', async () => {
    const { foldCustomization } = await import('../../src/vsphere/customization.js');
    const stale = { status: 'TOOLSDEPLOYPKG_SUCCEEDED', error: null, start_time: '2026-01-01T10:00:00Z', end_time: '2026-01-01T10:05:00Z' };
    const failed = { type: 'CustomizationSysprepFailed', created_at: '2026-02-01T09:00:00Z', message: 'sysprep failed' };
    expect(foldCustomization(stale, failed)).toEqual({ state: 'failed', message: 'sysprep failed' });
    const idle = { status: 'TOOLSDEPLOYPKG_IDLE', error: null, start_time: null, end_time: null };
    expect(foldCustomization(idle, { type: 'CustomizationStartedEvent', created_at: '2026-02-01T09:00:00Z', message: null }).state).toBe('running');
    const fresh = { ...stale, end_time: '2026-03-01T00:00:00Z' };
    expect(foldCustomization(fresh, failed).state).toBe('succeeded');
    expect(foldCustomization(null, undefined)).toEqual({ state: 'not_started', message: null });
  });
});
