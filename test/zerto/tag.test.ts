import { describe, expect, it } from 'vitest';
import { formatTag, markerOf, parseTag, sameChange, tagDate, tagMatches, tagTime } from '../../src/zerto/tag.js';

const at = new Date('2025-03-01T10:00:07.456Z');
const base = { agent: 'claude', action: 'edit /etc/app.conf', vm: 'app-01', change: 'chg-42', at };

describe('checkpoint tag', () => {
  it('formats ai-<marker> <utc> <agent> | <action> | vm=<vm> | change=<id> with second precision', () => {
    const tag = formatTag(base);
    expect(tag).toMatch(/^ai-[a-z2-7]{10} 2025-03-01T10:00:07Z claude \| edit \/etc\/app\.conf \| vm=app-01 \| change=chg-42$/);
    expect(tagTime(at)).toBe('2025-03-01T10:00:07Z');
  });

  it('gives the same call the same marker and any other call another one', () => {
    const m = markerOf(formatTag(base));
    expect(markerOf(formatTag({ ...base, at: new Date(), agent: 'other' }))).toBe(m);
    expect(markerOf(formatTag({ ...base, change: 'chg-43' }))).not.toBe(m);
    expect(markerOf(formatTag({ ...base, args: 'abcdef' }))).not.toBe(m);
    expect(markerOf(formatTag({ ...base, action: 'restart' }))).not.toBe(m);
  });

  it('keeps the separator out of components so the tag always parses back', () => {
    const tag = formatTag({ agent: 'my agent', action: 'a | b\nc', vm: 'vm|x', change: 'id 1', at, args: 'ab12' });
    expect(parseTag(tag)).toEqual({ agent: 'my-agent', action: 'a / b c', vm: 'vm/x', change: 'id-1', utc: '2025-03-01T10:00:07Z', args: 'ab12', marker: markerOf(tag) });
  });

  it('fits the configured maximum by shortening the free text, keeping marker, time and the parts that parse', () => {
    const long = { ...base, action: 'x'.repeat(120), vm: 'v'.repeat(120), change: 'c'.repeat(120), args: '0123456789abcdef' };
    const full = formatTag({ ...long, maxLength: 1000 });
    expect(full.length).toBeGreaterThan(400);
    const cut = formatTag({ ...long, maxLength: 120 });
    expect(cut.length).toBeLessThanOrEqual(120);
    expect(markerOf(cut)).toBe(markerOf(full));
    expect(parseTag(cut)?.args).toBe('0123456789abcdef');
    expect(formatTag(long).length).toBeLessThanOrEqual(200);
  });

  it('matches a listed name the ZVM cut short or trimmed, by its marker', () => {
    const tag = formatTag({ ...base, args: 'ab12' });
    expect(tagMatches(tag.slice(0, 40), tag)).toBe(true);
    expect(tagMatches(`${tag.slice(0, 13)}`, tag)).toBe(true);
    expect(tagMatches(`  ${tag}  `, tag)).toBe(true);
    expect(tagMatches(formatTag({ ...base, change: 'other' }), tag)).toBe(false);
    expect(tagDate(tag.slice(0, 34))?.toISOString()).toBe('2025-03-01T10:00:07.000Z');
    expect(sameChange(tag.slice(0, 40), 'APP-01', 'chg-42', { action: base.action, args: 'ab12' })).toBe(true);
    expect(sameChange(tag.slice(0, 40), 'app-01', 'chg-42', { action: base.action })).toBe(false);
  });

  it('still reads tags of the earlier format, which journals keep for weeks', () => {
    const old = 'ai:claude | edit | args=ab12 | vm=app-01 | change=c1 | 2025-03-01T10:00:07Z';
    expect(parseTag(old)).toEqual({ agent: 'claude', action: 'edit', args: 'ab12', vm: 'app-01', change: 'c1', utc: '2025-03-01T10:00:07Z' });
    expect(sameChange(old, 'App-01', 'c1', { action: 'edit', args: 'ab12' })).toBe(true);
    expect(tagDate(old)?.toISOString()).toBe('2025-03-01T10:00:07.000Z');
    expect(tagMatches(old, old)).toBe(true);
  });

  it('refuses empty components', () => {
    expect(() => formatTag({ agent: ' ', action: 'x', vm: 'v', change: 'c', at })).toThrow(/agent/);
  });

  it('returns null for checkpoint names it did not write', () => {
    expect(parseTag('pre-upgrade-2025-03-01')).toBeNull();
    expect(parseTag(null)).toBeNull();
    expect(parseTag('ai:x | y | vm=a | change=b | yesterday')).toBeNull();
    expect(markerOf('pre-upgrade')).toBeNull();
  });

  it('recognises the same change on the same VM, whatever agent or time', () => {
    const tag = formatTag({ agent: 'claude', action: 'x', vm: 'App-01', change: 'c1', at });
    expect(sameChange(tag, 'app-01', 'c1')).toBe(true);
    expect(sameChange(tag, 'app-01', 'c2')).toBe(false);
    expect(sameChange(tag, 'web-01', 'c1')).toBe(false);
  });
});
