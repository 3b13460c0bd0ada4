// config.json (ZERTO_REWIND_CONFIG): Zerto sites, guard timing, the mutating-tool catalog and the
// restore folder. zerto-ai-rewind's single-site shorthand (zerto_url, username, password) is still
// accepted, with a warning that the password belongs in the environment.
import { z } from 'zod';
import { resolveRelative } from './paths.js';
import { zodProblems, type ConfigProblem } from './problems.js';
import { DownstreamEntrySchema, expandDownstream, type DownstreamServerConfig } from './downstream-config.js';
import type { ZertoSiteConfig } from '../zerto/site-config.js';

const SiteSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/, 'letters, digits, dot, dash, underscore'),
    url: z.url({ protocol: /^https?$/ }),
    client_id: z.string().min(1).default('zerto-client'),
    credential_env_prefix: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'upper-case letters, digits and underscores, e.g. ZVM_SITE_A'),
    verify_tls: z.boolean().default(false),
    ca_file: z.string().min(1).optional(),
    vcenter_targets: z.array(z.string().min(1)).default([]),
    /** Longest checkpoint name this ZVM is sent; the ZVM's own limit is undocumented. */
    tag_max_length: z.number().int().min(80).max(1000).optional(),
  })
  .strict();

export const CatalogEntrySchema = z
  .object({
    tool: z.string().min(1).max(200).describe('Tool name as the agent calls it, e.g. "ssh/exec" or "winrm_run_command".'),
    vm_arg: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'a key, or a dotted path such as "target.host"')
      .describe('Argument holding the VM (name, FQDN, short hostname or IP); a dotted path reaches into objects; a list guards every VM.'),
    platform: z.enum(['linux', 'windows', 'any']).default('any'),
    note: z.string().max(500).default(''),
  })
  .strict();
export type CatalogEntry = z.infer<typeof CatalogEntrySchema>;

const GuardSchema = z
  .object({
    checkpoint_timeout_seconds: z.number().int().min(5).max(3_600).default(120),
    poll_interval_ms: z.number().int().min(50).max(60_000).default(2_000),
  })
  .strict();

export const AppConfigSchema = z
  .object({
    sites: z.array(SiteSchema).default([]),
    guard: GuardSchema.default({ checkpoint_timeout_seconds: 120, poll_interval_ms: 2_000 }),
    mutating_tools: z.array(CatalogEntrySchema).default([]),
    restore_dir: z.string().min(1).default('./restored'),
    downstream: z.array(DownstreamEntrySchema).default([]),
    downstream_first_listing_ms: z.number().int().min(0).max(30_000).default(2_000)
      .describe('How long the first tools/list waits for the downstream servers to list their tools (a one-shot client sees them); 0: not at all.'),
    // zerto-ai-rewind shorthand: one site, inline credentials.
    zerto_url: z.url({ protocol: /^https?$/ }).optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    client_id: z.string().optional(),
    verify_tls: z.boolean().optional(),
    vcenter_targets: z.array(z.string()).optional(),
  })
  .strict();

/** A site as config.json gives it: the ZVM client's shape, with the tag length left to its default when unset. */
export interface ZertoSiteEntry extends Omit<ZertoSiteConfig, 'tagMaxLength'> {
  tagMaxLength?: number;
}

export interface AppConfig {
  sites: ZertoSiteEntry[];
  guard: { checkpointTimeoutMs: number; pollIntervalMs: number };
  catalog: CatalogEntry[];
  restoreDir: string;
  /** Downstream MCP servers put behind this one (the gateway), env references expanded. */
  downstream: DownstreamServerConfig[];
  /** The most the first tools/list waits for downstream servers' first listing. */
  downstreamFirstListingMs: number;
  /** Variables synthesised from the shorthand's inline credentials, merged into the secret source. */
  inlineCredentials: Record<string, string>;
  warnings: string[];
}

const SHORTHAND_PREFIX = 'ZERTO_REWIND_INLINE';

/** `env` is where downstream `${VAR}` references are looked up. */
export function parseAppConfig(raw: unknown, file: string, env: Record<string, string | undefined> = {}): { config?: AppConfig; problems: ConfigProblem[] } {
  const parsed = AppConfigSchema.safeParse(raw);
  if (!parsed.success) return { problems: zodProblems(file, parsed.error) };
  const c = parsed.data;
  const warnings: string[] = [];
  const inlineCredentials: Record<string, string> = {};
  const downstream = expandDownstream(c.downstream, env, file);
  if (downstream.problems.length) return { problems: downstream.problems };
  // Registered like the shorthand's password: the secret source redacts *_SECRET values.
  downstream.secretValues.forEach((v, i) => { inlineCredentials[`ZERTO_REWIND_DOWNSTREAM_${i}_SECRET`] = v; });
  const sites: ZertoSiteEntry[] = c.sites.map((s) => ({
    name: s.name, url: s.url, clientId: s.client_id, credentialPrefix: s.credential_env_prefix,
    // A configured CA is only useful with verification on: naming one turns it on.
    verifyTls: s.verify_tls || s.ca_file !== undefined, vcenterTargets: s.vcenter_targets,
    ...(s.ca_file ? { caFile: resolveRelative(file, s.ca_file) } : {}),
    ...(s.tag_max_length ? { tagMaxLength: s.tag_max_length } : {}),
  }));
  if (c.zerto_url) {
    if (sites.length) return { problems: [{ file, path: 'zerto_url', reason: 'use either sites[] or the zerto_url shorthand, not both' }] };
    if (c.password) {
      warnings.push(`${file}: the password is inline; move it to the environment (sites[].credential_env_prefix -> {PREFIX}_PASSWORD). It is redacted everywhere meanwhile.`);
      inlineCredentials[`${SHORTHAND_PREFIX}_PASSWORD`] = c.password;
    }
    if (c.username) inlineCredentials[`${SHORTHAND_PREFIX}_USER`] = c.username;
    sites.push({
      name: 'zvm', url: c.zerto_url, clientId: c.client_id ?? 'zerto-client', credentialPrefix: SHORTHAND_PREFIX,
      verifyTls: c.verify_tls ?? false, vcenterTargets: c.vcenter_targets ?? [],
    });
  }
  const names = new Set<string>();
  for (const [i, s] of sites.entries()) {
    if (names.has(s.name)) return { problems: [{ file, path: `sites[${i}].name`, reason: `duplicate site name '${s.name}'` }] };
    names.add(s.name);
    if (!s.verifyTls && !s.caFile) warnings.push(`Zerto site '${s.name}': TLS certificate is not verified (verify_tls: false). Set ca_file to verify the appliance's self-signed certificate.`);
  }
  return {
    config: {
      sites,
      guard: { checkpointTimeoutMs: c.guard.checkpoint_timeout_seconds * 1000, pollIntervalMs: c.guard.poll_interval_ms },
      catalog: c.mutating_tools,
      restoreDir: resolveRelative(file, c.restore_dir),
      downstream: downstream.servers,
      downstreamFirstListingMs: c.downstream_first_listing_ms,
      inlineCredentials,
      warnings,
    },
    problems: [],
  };
}
