// Filters the read tools apply to full listings before paging: exact name, an RE2 name pattern,
// inventory-path subtrees (folder, resource pool) and ISO-8601 time bounds. Patterns come from the
// model, so they compile on re2js (linear time) and are checked while the arguments are parsed:
// a bad pattern is an invalid_input naming the field and the problem, before any target is asked.
import { re2, type RE2JS } from '../../../core/re2.js';
import { z } from 'zod';
import { NameRegexArg } from '../../args.js';

/** The RE2 compile error of `pattern`, or undefined when it compiles. */
export function re2Problem(pattern: string): string | undefined {
  try {
    re2().compile(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function checkedRe2<T extends z.ZodString>(schema: T) {
  return schema.superRefine((pattern, ctx) => {
    const problem = re2Problem(pattern);
    if (problem) {
      ctx.addIssue({
        code: 'custom',
        message: `not a valid RE2 regular expression (${problem}); RE2 has no backreferences or lookaround`,
      });
    }
  });
}

/** `name_regex`, validated on the linear-time engine while the arguments are parsed. */
export const SafeNameRegexArg = checkedRe2(NameRegexArg);

/** `entity_name` for events and tasks: same engine, matched against the entity names of a record. */
export const EntityNameRegexArg = checkedRe2(
  z.string().min(1).max(512).describe(
    'RE2 regular expression matched (anywhere; anchor with ^...$) against the names of the entities a record mentions ' +
      '(VM, host, cluster, datastore). Works for VMs that no longer exist.',
  ),
);

/** Compiles a pattern the schema already accepted. */
export function compileRe2(pattern: string): RE2JS {
  return re2().compile(pattern);
}

export { IsoTimeArg } from '../../args.js';

export interface NameFilter {
  name?: string | undefined;
  name_regex?: string | undefined;
}

/** A predicate over names: exact `name` and/or the `name_regex` pattern (found anywhere). */
export function nameMatcher(f: NameFilter): (name: string) => boolean {
  const re = f.name_regex !== undefined ? compileRe2(f.name_regex) : undefined;
  return (name) => (f.name === undefined || name === f.name) && (re === undefined || re.matcher(name).find());
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * Whether inventory path `path` (`/LabDC1/vm/apps/linux`) lies in the subtree named by `query`:
 * a folder or pool name (`apps`: any segment), a relative path (`apps/linux`: consecutive
 * segments anywhere) or an absolute path (`/LabDC1/vm/apps`: from the root). Everything below
 * the match is included.
 */
export function inSubtree(path: string | null | undefined, query: string): boolean {
  if (!path) return false;
  const have = segments(path);
  const want = segments(query);
  if (want.length === 0) return true;
  const anchored = query.startsWith('/');
  const last = anchored ? 0 : have.length - want.length;
  for (let start = 0; start <= last; start++) {
    if (want.every((w, i) => have[start + i] === w)) return true;
  }
  return false;
}

export interface TimeBounds {
  after?: string | undefined;
  before?: string | undefined;
}

/** `created_after` / `created_before`; a row without a time never matches a bound. */
export function timeMatcher(b: TimeBounds): (iso: string | null) => boolean {
  const after = b.after !== undefined ? Date.parse(b.after) : undefined;
  const before = b.before !== undefined ? Date.parse(b.before) : undefined;
  if (after === undefined && before === undefined) return () => true;
  return (iso) => {
    const t = iso ? Date.parse(iso) : Number.NaN;
    if (Number.isNaN(t)) return false;
    return (after === undefined || t >= after) && (before === undefined || t <= before);
  };
}
