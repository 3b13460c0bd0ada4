// The support bundle of `check --zerto --bundle FILE`: what a user attaches to a bug report so the
// project learns a real ZVM's shapes. It keeps member names, value kinds, numbers (enum values
// and states are what the schemas decide on) and date formats; every string value (names, ids,
// paths, tags) becomes a salted hash, the same value the same hash within one bundle, so rows
// still correlate. Secrets never enter it: no header, token or credential is ever read into the
// probe, and the known secret values are scrubbed from the text as a last line of defence.

import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { AppError } from '../../core/errors.js';
import { redactValues } from '../../core/redact.js';
import { VERSION } from '../../core/version.js';
import type { SiteProbe } from './zerto-probe.js';
import { ownText } from '../../core/own-text.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const MS_DATE = /^\/Date\(-?\d+([+-]\d{4})?\)\/$/;

export interface BundleOptions {
  /** Strings that must not appear (the secret source's known values). */
  secrets: string[];
  /** Strings hashed wherever they occur in free text (site names, URLs). */
  names: string[];
}

export function buildBundle(probes: SiteProbe[], opts: BundleOptions): Record<string, unknown> {
  const salt = randomBytes(16);
  const hash = (v: string): string => `h:${createHash('sha256').update(salt).update(v).digest('hex').slice(0, 12)}`;
  const scrub = (text: string): string => opts.names.filter((n) => n.length > 2).reduce((t, n) => t.split(n).join(hash(n)), text);
  const bundle = {
    tool: 'zerto-rewind-mcp',
    version: VERSION,
    created_at: new Date().toISOString(),
    note: 'Shapes of ZVM answers only: member names, value kinds, numbers and date formats. Every string value is a salted hash (random per bundle); no secrets.',
    sites: probes.map((p) => ({
      site: hash(p.site),
      routes: p.routes.map((r) => ({
        route: r.route, outcome: r.outcome, issues: r.issues.map(scrub),
        ...(r.rows === undefined ? {} : { rows: r.rows }),
        ...(r.sample === undefined ? {} : { shape: shapeOf(r.sample, hash) }),
      })),
    })),
  };
  return redactValues(bundle, opts.secrets);
}

/** The value's shape: objects keep their member names, strings become hashes or date formats. */
export function shapeOf(value: unknown, hash: (v: string) => string): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    if (value === '') return '';
    if (ISO.test(value)) return `<date ${value.replace(/\d/g, '9')}>`;
    if (MS_DATE.test(value)) return '<date /Date(ms)/>';
    return hash(value);
  }
  if (Array.isArray(value)) return { '<array>': value.length, items: value.slice(0, 3).map((v) => shapeOf(v, hash)) };
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shapeOf(v, hash)]));
  }
  return `<${typeof value}>`;
}

/** Writes the bundle, never over an existing file (a bundle from an earlier run stays as it was). */
export async function writeBundle(file: string, bundle: Record<string, unknown>): Promise<void> {
  try {
    await writeFile(file, `${JSON.stringify(bundle, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AppError('invalid_input', `Cannot write the support bundle to ${file}: ${code === 'EEXIST' ? 'the file exists' : (err as Error).message}.`, {
      hint: ownText(code === 'EEXIST' ? 'Name a new file, or remove the old bundle first.' : 'Name a file in a folder you can write to.'),
    });
  }
}
