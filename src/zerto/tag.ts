// The tagged-checkpoint name: `ai:<agent> | <action> | vm=<vm> | change=<id> | <utc>`. It records
// who pinned the point and why, and `vm=` + `change=` make a retry recognisable, so one change
// never leaves two tags. `<utc>` is the first attempt's time; a retry reuses the existing tag.

import { AppError } from '../core/errors.js';

export interface TagParts {
  agent: string;
  action: string;
  vm: string;
  change: string;
  /** `YYYY-MM-DDTHH:MM:SSZ` */
  utc: string;
  /** Hash of the change's arguments (`args=<hex>`): a retry must repeat the same call, not just the change id. */
  args?: string;
}

const SEP = ' | ';
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MAX_ACTION = 120;

/** `YYYY-MM-DDTHH:MM:SSZ` (seconds, no milliseconds). */
export function tagTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** One component: no separator, no newlines, collapsed whitespace. */
export function cleanTagPart(value: string, max = 200): string {
  const cleaned = value.replace(/[\r\n\t]+/g, ' ').replace(/\|/g, '/').replace(/\s+/g, ' ').trim();
  return cleaned.length > max ? cleaned.slice(0, max).trimEnd() : cleaned;
}

export function formatTag(p: Omit<TagParts, 'utc'> & { at: Date }): string {
  const args = p.args ? [`args=${p.args.replace(/[^0-9a-f]/gi, '').slice(0, 16)}`] : [];
  const agent = cleanTagPart(p.agent, 60).replace(/\s/g, '-');
  const action = cleanTagPart(p.action, MAX_ACTION);
  const vm = cleanTagPart(p.vm, 120);
  const change = cleanTagPart(p.change, 120).replace(/\s/g, '-');
  const missing = Object.entries({ agent, action, vm, change }).filter(([, v]) => v.length === 0).map(([k]) => k);
  if (missing.length > 0) throw new AppError('invalid_input', `A tagged checkpoint needs a non-empty ${missing.join(', ')}.`);
  return ['ai:' + agent, action, ...args, `vm=${vm}`, `change=${change}`, tagTime(p.at)].join(SEP);
}

/** Parses a tag written by formatTag; null for any other checkpoint name. */
export function parseTag(tag: string | null | undefined): TagParts | null {
  if (!tag) return null;
  const parts = tag.split(SEP);
  if (parts.length < 5) return null;
  const [head] = parts;
  const utc = parts[parts.length - 1]!;
  const vm = parts[parts.length - 3]!;
  const change = parts[parts.length - 2]!;
  if (!head!.startsWith('ai:') || !vm.startsWith('vm=') || !change.startsWith('change=') || !UTC.test(utc)) return null;
  const argsPart = parts.length >= 6 && /^args=[0-9a-f]+$/.test(parts[parts.length - 4]!) ? parts[parts.length - 4]!.slice(5) : undefined;
  return {
    agent: head!.slice(3),
    // An action from another writer might contain the separator; keep it whole.
    action: parts.slice(1, argsPart ? -4 : -3).join(SEP),
    ...(argsPart ? { args: argsPart } : {}),
    vm: vm.slice(3),
    change: change.slice(7),
    utc,
  };
}

/**
 * Whether `tag` records the same change on the same VM (what a retry must find). With `call`, a
 * true retry only: the same action and the same arguments' hash too, so one change id used for
 * two steps pins a checkpoint before each (restoring "before step 2" must not undo step 1).
 */
export function sameChange(tag: string | null | undefined, vm: string, change: string, call?: { action: string; args?: string | undefined }): boolean {
  const p = parseTag(tag);
  if (!p) return false;
  if (call && (p.action !== cleanTagPart(call.action, MAX_ACTION) || (p.args ?? '') !== (call.args ?? ''))) return false;
  return p.vm.toLowerCase() === cleanTagPart(vm, 120).toLowerCase() && p.change === cleanTagPart(change, 120).replace(/\s/g, '-');
}

/** The tag's time as a Date, for narrowing a checkpoint search. */
export function tagDate(tag: string): Date | null {
  const p = parseTag(tag);
  return p ? new Date(p.utc) : null;
}
