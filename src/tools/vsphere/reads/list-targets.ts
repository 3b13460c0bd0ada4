// list_targets: the configured vSphere targets and what is known about each after trying to log
// in to all of them concurrently (each within the fan-out deadline): connection, API version,
// instance UUID, last error, and which entries are the same vCenter configured twice. It reads
// the configuration rather than one target, so it resolves to no target: the pipeline then skips
// per-target policy and rate limits and still writes its `call` audit line.
import { z } from 'zod';
import { defineTool } from '../../define.js';
import { FanOutError } from '../support/common.js';
import { pool } from '../support/task-runner.js';
import { nstr, fanOutError } from '../support/read-common.js';
import { ownText } from '../../../core/own-text.js';

const TargetRow = z.object({
  name: z.string().describe('What every tool call passes as `target`.'),
  host: z.string(),
  port: z.number().int().optional(),
  tags: z.array(z.string()).describe('Tags policy rules match on (env:prod, ...).'),
  standalone_host: z.boolean().describe('A standalone ESXi host rather than a vCenter.'),
  dry_run: z.boolean().describe('Changes on this target are reported, not made (targets.yaml dry_run, else DRY_RUN).'),
  connected: z.boolean(),
  api_version: nstr,
  product: nstr.describe('about.fullName, e.g. "VMware vCenter Server 8.0.2 build-...".'),
  instance_uuid: nstr,
  last_error: FanOutError.nullable().describe('Why the last call to this target failed, if it did.'),
  shares_instance_with: z.array(z.string())
    .describe('Other targets that reach the same vCenter instance (DNS alias, ELM member listed twice): drop the duplicate.'),
  reachability: z.object({
    state: z.enum(['up', 'down']).describe('down: it timed out; calls answer `unreachable` at once until a background probe finds it back.'),
    down_since: nstr.describe('When it was marked down (ISO 8601).'),
    retry_after: z.number().int().nullable().describe('Seconds until the next probe.'),
  }),
});

export const listTargets = defineTool({
  name: 'list_targets',
  title: 'List vSphere targets',
  description:
    'Lists the configured vCenter/ESXi targets (the names `target` takes): host, tags, dry_run and, after a bounded login, connected, api_version, product, last_error, reachability (a down target fails fast until back). Call this first.',
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({}),
  output: z.object({ targets: z.array(TargetRow) }),
  async resolve() {
    return { targets: [], affected: [] };
  },
  async execute(_args, _resolution, ctx) {
    const timeoutMs = ctx.services.ext.fanOutTimeoutMs ?? 30_000;
    const status = await pool(ctx).status({ connect: true, timeoutMs, signal: ctx.signal });
    const byName = new Map(status.map((s) => [s.name, s]));
    return {
      targets: ctx.services.targets.map((t) => {
        const s = byName.get(t.name);
        return {
          // The operator's config wrote these, not an upstream system.
          name: ownText(t.name),
          host: ownText(t.host),
          ...(t.port !== undefined ? { port: t.port } : {}),
          tags: t.tags,
          standalone_host: t.standaloneHost,
          dry_run: t.dryRun ?? ctx.services.settings.dryRun,
          connected: s?.connected ?? false,
          api_version: s?.api_version ?? null,
          product: s?.full_name ?? null,
          instance_uuid: s?.instance_uuid ?? null,
          last_error: s?.last_error ? fanOutError(s.last_error) : null,
          shares_instance_with: s?.shares_instance_with ?? [],
          reachability: s?.reachability ?? { state: 'up' as const, down_since: null, retry_after: null },
        };
      }),
    };
  },
});
