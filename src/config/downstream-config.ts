// config.json `downstream`: other MCP servers this one starts and puts behind its pipeline (the
// gateway). Each entry is a stdio command (or a Streamable HTTP `url`), optionally bound to one VM
// (`vm`) and narrowed to an allowlist of its tools (`tools`). `env` values may reference the
// environment as `${VAR}`, so secrets stay out of the file; every referenced value is treated as
// a secret from then on (redacted from logs, audit lines and results).
import { z } from 'zod';
import { resolveRelative } from './paths.js';
import type { ConfigProblem } from './problems.js';
import { DownstreamUndoFields, guestFileSpec, type GuestFileSpec } from './downstream-undo.js';

/** Server names become the `<server>__` prefix of re-exported tools, so no `__` inside one and no trailing `_`. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

export const DownstreamEntrySchema = z
  .object({
    name: z.string().regex(SERVER_NAME, 'letters, digits, dash and underscore, at most 32, starting with a letter or digit')
      .refine((n) => !n.includes('__'), 'no double underscore: it separates the server from the tool in `<server>__<tool>`')
      .refine((n) => !n.endsWith('_'), 'no trailing underscore: `<name>___<tool>` could then also be another server\'s tool'),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    vm: z.string().min(1).max(255).optional()
      .describe('Binds every mutating tool of this server to one VM (name, FQDN, short hostname or IP): each is guarded for it.'),
    tools: z.array(z.string().min(1)).min(1).optional().describe('Allowlist of the downstream tool names to expose; the rest stay hidden.'),
    startup_timeout_seconds: z.number().int().min(1).max(300).default(30),
    call_timeout_seconds: z.number().int().min(1).max(3_600).default(300),
    call_total_timeout_seconds: z.number().int().min(1).max(86_400).optional()
      .describe('The most a call may run, progress or not (progress restarts call_timeout_seconds, never this); default 4 x call_timeout_seconds.'),
    max_tools: z.number().int().min(1).max(2_000).default(300)
      .describe('A listing with more tools is refused as a whole (the server then exposes its previous tools, or none).'),
    ...DownstreamUndoFields,
  })
  .strict()
  .refine((d) => (d.command === undefined) !== (d.url === undefined), { message: 'give either command (a stdio server) or url (Streamable HTTP), not both or neither' })
  .refine((d) => d.call_total_timeout_seconds === undefined || d.call_total_timeout_seconds >= d.call_timeout_seconds, {
    message: 'call_total_timeout_seconds bounds the whole call: make it at least call_timeout_seconds', path: ['call_total_timeout_seconds'],
  });

export type DownstreamEntry = z.infer<typeof DownstreamEntrySchema>;

export interface DownstreamServerConfig {
  name: string;
  command?: string;
  args: string[];
  /** With `${VAR}` references expanded. Never logged, audited or listed: only the keys are shown. */
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  vm?: string;
  tools?: string[];
  startupTimeoutMs: number;
  callTimeoutMs: number;
  /** The whole call's bound, progress or not. */
  callTotalTimeoutMs: number;
  /** A tools/list with more tools is refused. */
  maxTools: number;
  /** Which arguments name guest paths, and the tools that put a file back (config/downstream-undo.ts). */
  guestFiles?: GuestFileSpec;
}

/** A call's total bound when config.json gives none: progress may stretch a call this far. */
export const TOTAL_TIMEOUT_FACTOR = 4;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Literal values under these keys are secrets too, although they did not come from a reference. */
const SECRET_KEY = /pass(word|wd)?$|secret|token|api[-_]?key|credential|private[-_]?key/i;

export interface ExpandedDownstream {
  servers: DownstreamServerConfig[];
  /** Values to redact everywhere: every expanded reference and every literal secret-named value. */
  secretValues: string[];
  problems: ConfigProblem[];
}

/** Resolves `cwd` against the config file's folder and expands `${VAR}` in env values. */
export function expandDownstream(entries: DownstreamEntry[], env: Record<string, string | undefined>, file: string): ExpandedDownstream {
  const problems: ConfigProblem[] = [];
  const secretValues: string[] = [];
  const seen = new Set<string>();
  const servers = entries.map((d, i) => {
    if (seen.has(d.name)) problems.push({ file, path: `downstream[${i}].name`, reason: `duplicate downstream name '${d.name}'` });
    seen.add(d.name);
    const expanded: Record<string, string> = {};
    for (const [key, raw] of Object.entries(d.env)) {
      let referenced = false;
      const value = raw.replace(REFERENCE, (_m, name: string) => {
        referenced = true;
        const v = env[name];
        if (v === undefined || v === '') {
          problems.push({ file, path: `downstream[${i}].env.${key}`, reason: `references \${${name}}, which is not set in the environment` });
          return '';
        }
        return v;
      });
      if ((referenced || SECRET_KEY.test(key)) && value) secretValues.push(value);
      expanded[key] = value;
    }
    const guestFiles = guestFileSpec(d, d, { file, path: `downstream[${i}]` }, problems);
    return {
      name: d.name, args: d.args, env: expanded,
      startupTimeoutMs: d.startup_timeout_seconds * 1000, callTimeoutMs: d.call_timeout_seconds * 1000,
      callTotalTimeoutMs: (d.call_total_timeout_seconds ?? d.call_timeout_seconds * TOTAL_TIMEOUT_FACTOR) * 1000, maxTools: d.max_tools,
      ...(d.command ? { command: d.command } : {}),
      ...(d.cwd ? { cwd: resolveRelative(file, d.cwd) } : {}),
      ...(d.url ? { url: d.url } : {}),
      ...(d.vm ? { vm: d.vm } : {}),
      ...(d.tools ? { tools: d.tools } : {}),
      ...(guestFiles ? { guestFiles } : {}),
    };
  });
  return { servers, secretValues, problems };
}
