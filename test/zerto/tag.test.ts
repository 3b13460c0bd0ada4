import { describe, expect, it } from 'vitest';
import { formatTag, parseTag, sameChange, tagTime } from '../../src/zerto/tag.js';

const at = new Date('2025-03-01T10:00:07.456Z');

describe('checkpoint tag', () => {
  it('formats ai:<agent> | <action> | vm=<vm> | change=<id> | <utc> with second precision', () => {
    expect(formatTag({ agent: 'claude', action: 'edit /etc/app.conf', vm: 'app-01', change: 'chg-42', at }))
      .toBe('ai:claude | edit /etc/app.conf | vm=app-01 | change=chg-42 | 2025-03-01T10:00:07Z');
    expect(tagTime(at)).toBe('2025-03-01T10:00:07Z');
  });

  it('keeps the separator out of components so the tag always parses back', () => {
    const tag = formatTag({ agent: 'my agent', action: 'a | b\nc', vm: 'vm|x', change: 'id 1', at });
    expect(parseTag(tag)).toEqual({ agent: 'my-agent', action: 'a / b c', vm: 'vm/x', change: 'id-1', utc: '2025-03-01T10:00:07Z' });
  });

  it('refuses empty components', () => {
    expect(() => formatTag({ agent: ' ', action: 'x', vm: 'v', change: 'c', at })).toThrow(/agent/);
  });

  it('returns null for checkpoint names it did not write', () => {
    expect(parseTag('pre-upgrade-2025-03-01')).toBeNull();
    expect(parseTag(null)).toBeNull();
    expect(parseTag('ai:x | y | vm=a | change=b | yesterday')).toBeNull();
  });

  it('recognises the same change on the same VM, whatever agent or time', () => {
    const tag = formatTag({ agent: 'claude', action: 'x', vm: 'App-01', change: 'c1', at });
    expect(sameChange(tag, 'app-01', 'c1')).toBe(true);
    expect(sameChange(tag, 'app-01', 'c2')).toBe(false);
    expect(sameChange(tag, 'web-01', 'c1')).toBe(false);
  });
});
