// Upstream text is data. Results and errors carry text that vCenter, Zerto, guests and other MCP
// servers wrote (VM names, annotations, event and fault messages, file contents), and a person who
// can rename a VM can write it. Clients hand the model different parts of a result (Claude Code
// only structuredContent, Cursor only the text), so the marking is in every part:
// - text: the JSON between `<untrusted-data-ID>` and `</untrusted-data-ID>`, ID random per result,
//   with every `<` written `\u003c` (JSON.parse gives the same value back), so nothing inside can
//   look like a marker, let alone close the fence;
// - structuredContent (first key) and the error JSON: `_untrusted: {fence, fields}`, the fence id
//   and which fields hold upstream text, as paths (`results[].ok.name`). What counts is where a
//   string came from, recorded where it is written (core/own-text.ts): every string is upstream
//   text except ids and enums and what this server wrote itself (its own error messages, hints and
//   notices, the operator's target names), so a key that is forgotten is marked, never hidden;
// - `_meta["zerto-rewind/untrusted"]`: the same object, for clients and UIs.
// The server instructions explain the convention once, so no output schema grows.
import { randomBytes } from 'node:crypto';
import { isOwnText } from '../../core/own-text.js';

/** The opening marker's name; SERVER_INSTRUCTIONS explains it. */
export const UNTRUSTED_FENCE = 'untrusted-data';
/** Where a result's marking sits in `_meta`. */
export const UNTRUSTED_META_KEY = 'zerto-rewind/untrusted';
/** The marking's key in structuredContent and in the error JSON. */
export const UNTRUSTED_KEY = '_untrusted';

export interface UntrustedMark {
  /** The id of this result's fence in the text content. */
  fence: string;
  /** Paths of the string fields that hold upstream text; `*` last when the list was cut. */
  fields: string[];
}

/**
 * Keys whose strings are ids and enums nobody names freely (moids, tokens, states, timestamps,
 * configured target names) or words of this server by construction. Every other string counts as
 * upstream text unless it was recorded as this server's own (ownText): a key missing here is
 * marked, never the other way round.
 */
const SERVER_KEYS = new Set([
  'code', 'token', 'proposal_id', 'audit_id', 'change_id', 'checkpoint_id', 'vpg_id', 'task_id', 'session_id',
  'moid', 'source_moid', 'target', 'target_host', 'state', 'status', 'type', 'kind', 'outcome', 'transport', 'via',
  'power_state', 'connection_state', 'timestamp', 'created_at', 'started_at', 'finished_at', 'completed_at',
  'queued_at', 'expires_at', 'opened_at', 'boot_time', 'mount_time', 'down_since', 'start', 'end', 'start_time',
  'end_time', 'ended_at', 'task', 'step', 'unit', 'api_version', 'uuid', 'instance_uuid', 'mac_address', UNTRUSTED_KEY,
  // Names of this server or its operator: a policy rule's name, this server's tool names, a
  // configured Zerto site or downstream server name. Marking them would dilute the mark on what
  // really came from upstream. A hint is not here: ours are recorded where they are written
  // (ownText), and one that quotes a VM name stays marked.
  'rule', 'tool', 'site', 'downstream',
]);

/** Enough to name a result's upstream fields; a longer list ends in `*` (and the rest too). */
const MAX_FIELDS = 64;

export function newFenceId(): string {
  return randomBytes(8).toString('hex');
}

/** `<untrusted-data-ID>\n{json}\n</untrusted-data-ID>`; `<` inside is escaped, so the fence holds. */
export function fenced(json: string, id: string = newFenceId()): string {
  // In JSON a `<` can only stand inside a string, where `\u003c` means the same character.
  return `<${UNTRUSTED_FENCE}-${id}>\n${json.replace(/</g, '\\u003c')}\n</${UNTRUSTED_FENCE}-${id}>`;
}

/** The JSON inside a fenced text block (clients that read the text, and tests). */
export function unfenced(text: string): string {
  const m = new RegExp(`^<${UNTRUSTED_FENCE}-([0-9a-f]{16})>\\n([\\s\\S]*)\\n</${UNTRUSTED_FENCE}-\\1>$`).exec(text);
  return m ? m[2]! : text;
}

/**
 * The marking for a value: its fence id and the paths of its upstream strings. `everyString`
 * marks all of them (a downstream server's result, whose keys mean nothing to this server).
 */
export function markOf(value: unknown, fence: string, everyString = false): UntrustedMark {
  const fields = new Set<string>();
  collect(value, '', '', everyString, fields);
  const list = [...fields];
  return { fence, fields: list.length > MAX_FIELDS ? [...list.slice(0, MAX_FIELDS), '*'] : list };
}

/** The value with its marking as the first key (clients that show the model only this JSON). */
export function withMark<T extends Record<string, unknown>>(value: T, mark: UntrustedMark): T & { _untrusted: UntrustedMark } {
  // First by position, ours by value: a forged `_untrusted` in the value is overwritten.
  const out: Record<string, unknown> = { [UNTRUSTED_KEY]: mark, ...value };
  out[UNTRUSTED_KEY] = mark;
  return out as T & { _untrusted: UntrustedMark };
}

/** `key`: the object key the value sits under (an array's items keep their array's key). */
function collect(value: unknown, path: string, key: string, everyString: boolean, out: Set<string>): void {
  if (typeof value === 'string') {
    if (path !== '' && (everyString || !(SERVER_KEYS.has(key) || isOwnText(value)))) out.add(path);
    return;
  }
  if (Array.isArray(value)) {
    const items = `${path}[]`;
    for (const item of value) collect(item, items, key, everyString, out);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [k, v] of Object.entries(value)) {
    if (path === '' && k === UNTRUSTED_KEY) continue;
    collect(v, path === '' ? k : `${path}.${k}`, k, everyString, out);
  }
}
