// The tagged-checkpoint name:
//   `ai-<marker> <utc> <agent> | <action> | args=<hash> | vm=<vm> | change=<id>`
// It records who pinned the point and why; `<marker>` (ten base32 characters, a hash of the vm,
// change, action and arguments) makes a retry recognisable, so one call never leaves two tags.
// No ZVM source gives the name's maximum length or says whether it is trimmed (docs/zerto-notes.md),
// so everything a match needs sits in the first 34 characters: a tag is found by its marker, and
// its time read from the front, even when the ZVM kept only a prefix or trimmed the rest. The
// whole name is cut to a configurable maximum by shortening the free text, never the marker.
// Tags of the earlier format (`ai:<agent> | … | <utc>`) still parse: journals hold them for weeks.

import { createHash } from 'node:crypto';
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
  /** The short unique marker (absent only in tags of the earlier format). */
  marker?: string;
}

const SEP = ' | ';
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MARKER = /^ai-([a-z2-7]{10})(?:\s|$)/;
const HEAD = /^ai-([a-z2-7]{10}) (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)(?: (.*))?$/s;
const MAX_ACTION = 120;
/** Default cut when the site configures none: long enough to read, short enough for any store. */
export const DEFAULT_TAG_MAX_LENGTH = 200;
/** `ai-<marker> <utc> ` plus room for the agent and a few characters of each part. */
export const MIN_TAG_MAX_LENGTH = 80;

/** `YYYY-MM-DDTHH:MM:SSZ` (seconds, no milliseconds). */
export function tagTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** One component: no separator, no newlines, collapsed whitespace. */
export function cleanTagPart(value: string, max = 200): string {
  const cleaned = value.replace(/[\r\n\t]+/g, ' ').replace(/\|/g, '/').replace(/\s+/g, ' ').trim();
  return cleaned.length > max ? cleaned.slice(0, max).trimEnd() : cleaned;
}

const cleanVm = (vm: string): string => cleanTagPart(vm, 120);
const cleanChange = (change: string): string => cleanTagPart(change, 120).replace(/\s/g, '-');
const cleanArgs = (args: string | undefined): string => (args ?? '').replace(/[^0-9a-f]/gi, '').slice(0, 16);

/** The marker of one call: the same VM, change, action and arguments always give the same one. */
export function tagMarker(p: { vm: string; change: string; action: string; args?: string | undefined }): string {
  const key = JSON.stringify([cleanVm(p.vm).toLowerCase(), cleanChange(p.change), cleanTagPart(p.action, MAX_ACTION), cleanArgs(p.args)]);
  return base32(createHash('sha256').update(key).digest()).slice(0, 10);
}

export function formatTag(p: Omit<TagParts, 'utc' | 'marker'> & { at: Date; maxLength?: number | undefined }): string {
  const args = cleanArgs(p.args);
  const agent = cleanTagPart(p.agent, 60).replace(/\s/g, '-');
  const parts = { action: cleanTagPart(p.action, MAX_ACTION), vm: cleanVm(p.vm), change: cleanChange(p.change) };
  const missing = Object.entries({ agent, ...parts }).filter(([, v]) => v.length === 0).map(([k]) => k);
  if (missing.length > 0) throw new AppError('invalid_input', `A tagged checkpoint needs a non-empty ${missing.join(', ')}.`);
  const head = `ai-${tagMarker({ ...parts, args })} ${tagTime(p.at)} ${agent}`;
  const build = (): string => [head, parts.action, ...(args ? [`args=${args}`] : []), `vm=${parts.vm}`, `change=${parts.change}`].join(SEP);
  const max = Math.max(MIN_TAG_MAX_LENGTH, p.maxLength ?? DEFAULT_TAG_MAX_LENGTH);
  // Shorten the free text first, then the names: the marker already identifies the call.
  for (const key of ['action', 'vm', 'change'] as const) {
    const over = build().length - max;
    if (over <= 0) break;
    parts[key] = parts[key].slice(0, Math.max(4, parts[key].length - over)).trimEnd();
  }
  const tag = build();
  return tag.length > max ? tag.slice(0, max).trimEnd() : tag;
}

/** Parses a tag written by formatTag (either format); null for any other checkpoint name or a cut one. */
export function parseTag(tag: string | null | undefined): TagParts | null {
  if (!tag) return null;
  const head = HEAD.exec(tag);
  if (head) return parseCurrent(head[1]!, head[2]!, head[3] ?? '');
  return parseEarlier(tag);
}

function parseCurrent(marker: string, utc: string, rest: string): TagParts | null {
  const parts = rest.split(SEP);
  if (parts.length < 4) return null;
  const vm = parts[parts.length - 2]!;
  const change = parts[parts.length - 1]!;
  if (!vm.startsWith('vm=') || !change.startsWith('change=')) return null;
  const argsPart = parts.length >= 5 && /^args=[0-9a-f]+$/.test(parts[parts.length - 3]!) ? parts[parts.length - 3]!.slice(5) : undefined;
  return {
    agent: parts[0]!, action: parts.slice(1, argsPart ? -3 : -2).join(SEP), ...(argsPart ? { args: argsPart } : {}),
    vm: vm.slice(3), change: change.slice(7), utc, marker,
  };
}

/** `ai:<agent> | <action> | [args=<hex> |] vm=<vm> | change=<id> | <utc>`. */
function parseEarlier(tag: string): TagParts | null {
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

/** The marker at the front of a listed name, if it has one (a cut or trimmed name keeps it). */
export function markerOf(tag: string | null | undefined): string | null {
  return MARKER.exec(tag?.trimStart() ?? '')?.[1] ?? null;
}

/**
 * Whether a listed checkpoint name is the tag wanted: by marker when both have one (the ZVM may
 * have cut or trimmed the rest), else by the whole name with outer whitespace ignored.
 */
export function tagMatches(listed: string | null | undefined, wanted: string): boolean {
  if (!listed) return false;
  const a = markerOf(listed);
  const b = markerOf(wanted);
  if (a && b) return a === b;
  return listed.trim() === wanted.trim();
}

/**
 * Whether `tag` records the same change on the same VM (what a retry must find). With `call`, a
 * true retry only: the same action and the same arguments' hash too, so one change id used for
 * two steps pins a checkpoint before each (restoring "before step 2" must not undo step 1).
 */
export function sameChange(tag: string | null | undefined, vm: string, change: string, call?: { action: string; args?: string | undefined }): boolean {
  const marker = markerOf(tag);
  if (marker && call) return marker === tagMarker({ vm, change, action: call.action, args: call.args });
  const p = parseTag(tag);
  if (!p) return false;
  if (call && (p.action !== cleanTagPart(call.action, MAX_ACTION) || (p.args ?? '') !== cleanArgs(call.args))) return false;
  return p.vm.toLowerCase() === cleanVm(vm).toLowerCase() && p.change === cleanChange(change);
}

/** The tag's time as a Date, for narrowing a checkpoint search; read from the front when it has a marker. */
export function tagDate(tag: string): Date | null {
  const front = /^ai-[a-z2-7]{10} (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)/.exec(tag.trimStart());
  if (front) return new Date(front[1]!);
  const p = parseEarlier(tag);
  return p ? new Date(p.utc) : null;
}

function base32(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}
