// Configuration problems are collected, never thrown one at a time: an operator fixing a file
// should see every mistake in it at once, each with the file, the path inside it and the reason.
import type { z } from 'zod';

export interface ConfigProblem {
  file: string;
  path: string;
  reason: string;
}

export class ConfigError extends Error {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    super(formatProblems(problems));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function formatProblems(problems: ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${p.file}${p.path ? ` at ${p.path}` : ''}: ${p.reason}`);
  return `Configuration is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}

/** One problem per zod issue, with a dotted path such as `targets[2].host`. */
export function zodProblems(file: string, error: z.ZodError, prefix = ''): ConfigProblem[] {
  return error.issues.map((issue) => ({
    file,
    path: joinPath(prefix, issue.path),
    reason: issue.message,
  }));
}

function joinPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
