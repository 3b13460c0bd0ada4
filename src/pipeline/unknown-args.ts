// Arguments a tool does not declare are refused, not silently dropped: `vm_name` for `vm` would
// otherwise run the call without the filter the agent meant. Each unknown name is reported with
// the closest declared one (edit distance), so the agent can fix the call in one step.
import type { z } from 'zod';
import { AppError } from '../core/errors.js';
import { ownText } from '../core/own-text.js';

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The declared name nearest to `name`, when it is near enough to be a plausible slip. */
export function closestName(name: string, declared: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of declared) {
    // A prefix or suffix relation (vm_name / vm, target_name / target) counts as near.
    const d = name.startsWith(c) || name.endsWith(c) || c.startsWith(name) ? Math.min(editDistance(name, c), 2) : editDistance(name, c);
    if (!best || d < best.d) best = { name: c, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

export function unknownArgsError(toolName: string, input: z.ZodObject, raw: unknown): AppError | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  // A schema that takes any key on purpose (a gateway tool, validated against its downstream's own
  // JSON schema) has nothing to compare against.
  if (input.def.catchall !== undefined) return undefined;
  const declared = Object.keys(input.shape);
  const unknown = Object.keys(raw).filter((k) => !declared.includes(k));
  if (!unknown.length) return undefined;
  const parts = unknown.map((k) => {
    const near = closestName(k, declared);
    return near ? `${JSON.stringify(k)} (did you mean '${near}'?)` : JSON.stringify(k);
  });
  return new AppError('invalid_input', `${toolName}: unknown argument${unknown.length > 1 ? 's' : ''} ${parts.join(', ')}.`, {
    hint: ownText(`${toolName} takes ${declared.length ? declared.map((d) => `'${d}'`).join(', ') : 'no arguments'}; see its inputSchema in tools/list.`),
    details: { unknown_arguments: unknown },
  });
}
