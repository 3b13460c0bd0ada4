// The shared argument vocabulary. Every tool builds its input schema from these, so `target`,
// `vm`, `limit`... mean the same thing and are described the same way on every tool.
import { z } from 'zod';
import { AppError } from '../core/errors.js';
import { exceedsDepth, MAX_ARGUMENT_DEPTH } from '../core/json-depth.js';
import { ownText } from '../core/own-text.js';

export const TargetsArg = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .default('all')
  .describe('Target, list of targets, or "all".');

export const TargetArg = z
  .string()
  .min(1)
  .describe('One target name (see list_targets).');

export const VmArg = z.string().min(1).describe('VM name or moid.');
export const HostArg = z.string().min(1).describe('ESXi host name or moid.');
export const ClusterArg = z.string().min(1).describe('Cluster name or moid.');
export const DatastoreArg = z.string().min(1).describe('Datastore name or moid.');
export const SnapshotArg = z.string().min(1).describe('Snapshot name or moid.');
export const NameArg = z.string().min(1).describe('Exact name.');
export const NameRegexArg = z
  .string()
  .min(1)
  .max(512)
  .describe('RE2 regex on names.');
export const FolderArg = z.string().min(1).describe('Folder name or inventory path (whole subtree).');
export const ResourcePoolArg = z.string().min(1).describe('Resource pool name or path.');
export const PowerStateArg = z.enum(['poweredOn', 'poweredOff', 'suspended']).describe('Only this power state.');
export const ConnectionStateArg = z
  .enum(['connected', 'disconnected', 'orphaned', 'inaccessible', 'invalid', 'notResponding'])
  .describe('Only this connection state.');

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
export const LimitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_LIMIT)
  .default(DEFAULT_LIMIT)
  .describe(`Rows per target (max ${MAX_LIMIT}).`);
export const OffsetArg = z.number().int().min(0).default(0).describe('Rows to skip per target.');
export const OverrideArg = z
  .boolean()
  .default(false)
  .describe('Pass an unless_override policy rule.');
export const TokenArg = z.string().min(8).describe('Token of a pending proposal.');
export const ChangeIdArg = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .describe('Your change id; reuse it on retry.');

/**
 * What every change tool takes besides its objects: `override`, and the change id that names the
 * change in its checkpoint tag (a retry with the same id reuses the checkpoint instead of pinning
 * a second one).
 */
export const ChangeCommonArgs = {
  override: OverrideArg,
  change_id: ChangeIdArg.optional(),
};

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * A real calendar time in ISO-8601: a four-digit year (no expanded years such as
 * -271821-04-20, which Date accepts and then overflows on arithmetic), a day that exists in its
 * month (2024-02-30 is refused instead of rolling over to March 1), hours 0-23, minutes and
 * seconds 0-59, an offset within +-14:00.
 */
export function isCalendarTime(s: string): boolean {
  const m = ISO_TIME.exec(s);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  if (year! < 1000 || month! < 1 || month! > 12) return false;
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (day! < 1 || day! > daysInMonth || hour > 23 || minute > 59 || second > 59) return false;
  const offset = m[7];
  if (offset && offset.toUpperCase() !== 'Z') {
    const digits = offset.replace(':', '');
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 14 || om > 59) return false;
  }
  return Number.isFinite(Date.parse(m[4] === undefined ? `${s}T00:00:00Z` : s.replace(' ', 'T')));
}

export const IsoTimeArg = z
  .string()
  .min(4)
  .refine(isCalendarTime, 'not an ISO-8601 date or date-time that exists (e.g. "2024-05-01" or "2024-05-01T12:00:00Z")');

/**
 * Checks raw arguments before any schema sees them: nesting depth (a 5,000-level value would
 * overflow the stack of whatever walks it) and lone UTF-16 surrogates (which no vCenter, ZVM or
 * file name can hold, and which break URL and XML encoding downstream). Iterative, so it is safe on
 * any input. Returns the refusal, or undefined when the arguments may be parsed.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function screenArguments(toolName: string, raw: unknown): AppError | undefined {
  if (exceedsDepth(raw, MAX_ARGUMENT_DEPTH)) {
    return new AppError('invalid_input', `Invalid arguments for ${toolName}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels.`, {
      hint: ownText('Pass the arguments the tool schema describes; none of them nests this deep.'),
    });
  }
  const stack: Array<{ v: unknown; path: string }> = [{ v: raw, path: '' }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return loneSurrogate(toolName, path || '(arguments)');
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const at = path ? `${path}.${k}` : k;
        if (LONE_SURROGATE.test(k)) return loneSurrogate(toolName, at);
        stack.push({ v: child, path: at });
      }
    }
  }
  return undefined;
}

function loneSurrogate(toolName: string, path: string): AppError {
  return new AppError('invalid_input', `Invalid arguments for ${toolName}: ${path}: contains a lone UTF-16 surrogate (not valid Unicode text).`, {
    hint: ownText('Send well-formed Unicode text; names in vCenter and Zerto never contain lone surrogates.'),
    details: { fields: [{ path, message: 'lone surrogate' }] },
  });
}

/** The result field where every dry-runnable tool reports what it would have done. */
export const WouldField = { would: z.string().optional().describe('Dry run only: what would have happened. Nothing was changed.') };
