// FLR sessions: list what each ZVM has mounted (joined with what this server recorded, so a mount
// orphaned by a crashed restore is visible), and end one. Sessions this server did not open are
// somebody else's restore until proven otherwise: ending them needs force.
import { z } from 'zod';
import { defineTool } from '../define.js';
import { siteOf, SiteArg, siteTarget, zertoOf } from './zerto-common.js';
import { WouldField } from '../args.js';

const SessionOut = z.object({
  site: z.string(),
  session_id: z.string(),
  status: z.string(),
  vm_identifier: z.string().nullable(),
  vpg_id: z.string().nullable(),
  checkpoint_id: z.string().nullable(),
  mount_time: z.string().nullable(),
  opened_by_this_server: z.boolean().describe('Recorded by this server (this process or an earlier run).'),
  orphaned: z.boolean().describe('Opened by an earlier run of this server that is gone: nobody will unmount it unless you end it.'),
  opened_at: z.string().optional(),
  vm: z.string().optional(),
  vpg: z.string().optional(),
});

const SiteError = z.object({ site: z.string(), code: z.string(), message: z.string() });

export const zertoListFlrSessions = defineTool({
  name: 'zerto_list_flr_sessions',
  title: 'List Zerto file-restore (FLR) sessions',
  description:
    'Lists the FLR sessions each ZVM has mounted, marking those this server opened and those orphaned by a crashed run (end them with zerto_end_flr_session).',
  category: 'read',
  toolset: 'flr',
  idempotent: true,
  input: z.object({ site: SiteArg.optional().describe('Only this Zerto site (default: every configured site).') }),
  output: z.object({ sessions: z.array(SessionOut), errors: z.array(SiteError) }),
  async resolve(args, ctx) {
    const zerto = zertoOf(ctx);
    const sites = args.site ? [siteOf(zerto, args.site)] : zerto.sites;
    return { targets: sites.map(siteTarget), affected: [], summary: 'list FLR sessions' };
  },
  async execute(_args, _resolution, ctx) {
    const zerto = zertoOf(ctx);
    const allowed = ctx.allowedTargets.map((t) => t.name);
    const results = await Promise.all(allowed.map((site) => zerto.flrSessions.list({ site, signal: ctx.signal })));
    const denied = [...ctx.deniedTargets].map(([site, e]) => ({ site, code: e.code, message: e.message }));
    return {
      sessions: results.flatMap((r) => r.sessions),
      errors: [...results.flatMap((r) => r.errors), ...denied],
    };
  },
});

export const zertoEndFlrSession = defineTool({
  name: 'zerto_end_flr_session',
  title: 'End (unmount) a Zerto FLR session',
  description:
    'Unmounts one FLR session (orphaned ones; zerto_recover_file unmounts its own). A session this server did not open needs force=true: ask the user first.',
  category: 'mutate',
  toolset: 'flr',
  idempotent: true,
  guard: false,
  input: z.object({
    site: SiteArg,
    session_id: z.string().min(1).max(200).describe('FLR session id from zerto_list_flr_sessions.'),
    force: z.boolean().default(false).describe('End it even though this server did not open it.'),
  }),
  output: z.object({
    site: z.string(),
    session_id: z.string(),
    status: z.enum(['unmounted', 'requested', 'failed']).describe('unmounted: confirmed gone; requested: accepted, not yet confirmed.'),
    task_id: z.string().nullable().optional(),
    message: z.string().optional(),
    opened_by_this_server: z.boolean(),
    ...WouldField,
  }),
  async resolve(args, ctx) {
    const site = siteOf(zertoOf(ctx), args.site);
    return {
      targets: [siteTarget(site)],
      affected: [{ type: 'flr_session', name: args.session_id, site: args.site }],
      summary: `end FLR session ${args.session_id} at Zerto site '${args.site}'${args.force ? ' (forced)' : ''}`,
    };
  },
  async execute(args, _resolution, ctx) {
    return zertoOf(ctx).flrSessions.end({ site: args.site, sessionId: args.session_id, force: args.force, signal: ctx.signal });
  },
  async dryRun(args) {
    return { would: `unmount FLR session ${args.session_id} at '${args.site}'` };
  },
});
