// targets.yaml: the vCenters and ESXi hosts the server may talk to, by name. Every tool call
// names its target; there is never an implicit connection.
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { readFileSync } from 'node:fs';
import { resolveRelative } from './paths.js';
import { zodProblems, type ConfigProblem } from './problems.js';
import type { TargetConfig } from '../vsphere/target-config.js';

const TargetNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'use letters, digits, dot, dash or underscore (max 63), starting with a letter or digit')
  .refine((n) => n !== 'all', "'all' is reserved for fan-out reads");

export const TargetEntrySchema = z
  .object({
    name: TargetNameSchema,
    host: z.string().min(1, 'host is required (FQDN or IP of the vCenter or ESXi host)'),
    credential_env_prefix: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/, 'use upper-case letters, digits and underscores, e.g. VC_PROD1'),
    port: z.number().int().min(1).max(65_535).optional(),
    protocol: z.enum(['https', 'http']).default('https'),
    insecure: z.boolean().default(false),
    ca_file: z.string().min(1).optional(),
    tags: z.array(z.string().min(1)).default([]),
    standalone_host: z.boolean().default(false),
    dry_run: z.boolean().optional(),
  })
  .strict();

export const TargetsFileSchema = z
  .object({ targets: z.array(TargetEntrySchema).min(1, 'declare at least one target') })
  .strict()
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.targets.forEach((t, i) => {
      const first = seen.get(t.name);
      if (first !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['targets', i, 'name'], message: `duplicate target name '${t.name}' (first at targets[${first}])` });
      } else seen.set(t.name, i);
    });
  });

/** A targets.yaml entry: the vim25 client's shape, with the protocol filled in and the per-target dry run. */
export interface TargetEntry extends TargetConfig {
  protocol: 'https' | 'http';
  /** Per-target dry run; when set it wins over DRY_RUN in either direction. */
  dryRun?: boolean;
}

export function parseTargets(text: string, file: string): { targets: TargetEntry[]; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    return { targets: [], problems: [{ file, path: '', reason: `not valid YAML: ${(err as Error).message}` }] };
  }
  const parsed = TargetsFileSchema.safeParse(raw);
  if (!parsed.success) return { targets: [], problems: zodProblems(file, parsed.error) };
  const targets = parsed.data.targets.map((t): TargetEntry => {
    const entry: TargetEntry = {
      name: t.name,
      host: t.host,
      protocol: t.protocol,
      insecure: t.insecure,
      credentialPrefix: t.credential_env_prefix,
      tags: t.tags,
      standaloneHost: t.standalone_host,
    };
    if (t.port !== undefined) entry.port = t.port;
    if (t.ca_file !== undefined) entry.caFile = resolveRelative(file, t.ca_file);
    if (t.dry_run !== undefined) entry.dryRun = t.dry_run;
    return entry;
  });
  return { targets, problems: [] };
}

export function loadTargetsFile(file: string): { targets: TargetEntry[]; problems: ConfigProblem[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { targets: [], problems: [{ file, path: '', reason: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }] };
  }
  return parseTargets(text, file);
}
