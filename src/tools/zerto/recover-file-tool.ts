// zerto_recover_file: file-level restore of one guest file from a checkpoint, two-phase. The
// proposal names the VM, the VPG, the checkpoint (id, time, tag) and the path; confirm_action
// mounts (at whichever ZVM of the VPG's sites accepts it), downloads, and always unmounts. Nothing is written into the guest: the
// bytes come back inline (small UTF-8 text) or are saved under restore_dir for a human to put back.
import { z } from 'zod';
import { parseGuestPath } from '../../zerto/guest-path.js';
import { firstPlaceableCandidate, flrCandidates, recoverFile, siteClientLookup } from '../../zerto/index.js';
import { defineTool } from '../define.js';
import { findProtectionAnywhere, type FoundAnywhere, type SitedVpg } from '../../zerto/protection.js';
import type { ZertoServices } from '../../zerto/zerto-services.js';
import { quoted } from '../../mcp/output/quote.js';
import {
  policyTarget, siteOf, SiteArg, vmAffected, vsphereHomeOf, zertoOf, ZertoVmArg, type ZertoResolution,
} from './zerto-common.js';

interface Chosen {
  found: FoundAnywhere;
  vpg: SitedVpg;
  checkpoint: { id: string; timestamp: string; tag: string | null };
  /** FLR partition label the caller named, if any. */
  partition?: string;
}

const NOTHING_WRITTEN = 'Nothing is written into the guest: the file comes back inline (UTF-8 text up to 64 KiB) or is saved under restore_dir on this server, for a human to put back.';

export const zertoRecoverFile = defineTool({
  name: 'zerto_recover_file',
  title: 'Recover a guest file from a Zerto checkpoint',
  description:
    'Restores one guest file as it was at a checkpoint (tag or checkpoint_id) through Zerto file-level restore, from the first VPG holding it that a site mounts, local first. Two-phase. Returns the content inline (UTF-8, 64 KiB) or the saved path, with sha256; writes nothing into the guest.',
  category: 'mutate',
  toolset: 'flr',
  twoPhase: true,
  idempotent: false,
  guard: false,
  input: z.object({
    vm: ZertoVmArg,
    path: z.string().min(2).max(1024).describe('Absolute guest path of the file: /etc/app.conf or C:\\app\\app.ini.'),
    tag: z.string().min(1).max(512).optional().describe('Checkpoint tag, exactly as returned when pinned.'),
    checkpoint_id: z.string().min(1).max(64).optional().describe('Checkpoint identifier, instead of (or as well as) the tag.'),
    vpg: z.string().min(1).optional().describe('VPG name or id: only that VPG (default: every VPG listing the checkpoint, locally replicated first).'),
    partition: z.string().min(1).max(256).optional().describe(
      'Partition label, as an earlier refusal listed it (file on several partitions, or a Windows drive other than C:).'),
    site: SiteArg.optional().describe('Only look at this Zerto site.'),
  }).refine((a) => a.tag !== undefined || a.checkpoint_id !== undefined, { message: 'give tag or checkpoint_id', path: ['tag'] }),
  output: z.object({
    site: z.string(),
    vm: z.object({ name: z.string(), vm_identifier: z.string() }),
    vpg: z.object({ name: z.string(), id: z.string() }),
    checkpoint: z.object({ id: z.string(), tag: z.string().nullable(), timestamp: z.string() }),
    guest_path: z.string(),
    flr_path: z.string(),
    partition: z.string(),
    size: z.number(),
    sha256: z.string(),
    delivered: z.enum(['inline', 'file']),
    content: z.string().optional().describe('The file as it was at the checkpoint (delivered inline).'),
    saved_to: z.string().optional().describe('Where the file was saved on this server (delivered as a file).'),
    packaging: z.enum(['raw', 'zip']),
    session_id: z.string(),
    unmount: z.object({
      site: z.string(), session_id: z.string(), status: z.enum(['unmounted', 'requested', 'failed']),
      task_id: z.string().nullable().optional(), message: z.string().optional(),
    }).describe('This server\'s own unmount of the FLR session; "failed" means end it with zerto_end_flr_session.'),
    note: z.string(),
  }),
  async resolve(args, ctx) {
    parseGuestPath(args.path);
    // A site that only recovers the VM (a recovery-site-only configuration) can still restore.
    const found = await findProtectionAnywhere(zertoOf(ctx), { query: args.vm, includeRecovered: true, ...(args.site ? { site: args.site } : {}), signal: ctx.signal });
    const home = await vsphereHomeOf(ctx, found);
    const zerto = zertoOf(ctx);
    const clientOf = (v: SitedVpg) => siteOf(zerto, v.site).client;
    const candidates = await flrCandidates(clientOf, found.vm.name, found.vpgs, { tag: args.tag, id: args.checkpoint_id }, { vpg: args.vpg, signal: ctx.signal });
    // Refused now, before a human approves, when no ZVM's CanMount allows any VPG holding it.
    const picked = await firstPlaceableCandidate(clientOf, candidates, found.vm.vm_identifier, { recoverySite: recoverySites(zerto), signal: ctx.signal });
    const { vpg } = picked;
    const checkpoint = { id: picked.checkpoint.CheckpointIdentifier, timestamp: picked.checkpoint.TimeStamp, tag: picked.checkpoint.Tag ?? null };
    const others = candidates.filter((c) => c.vpg.id !== vpg.id).map((c) => c.vpg);
    const chosen: Chosen = { found: args.vpg ? { ...found, vpgs: [vpg] } : found, vpg, checkpoint };
    if (args.partition) chosen.partition = args.partition;
    const partition = args.partition ? ` on FLR partition '${args.partition}'` : '';
    const resolution: ZertoResolution<Chosen> = {
      targets: [policyTarget(ctx, found, home)],
      affected: [
        vmAffected(found, home),
        { type: 'vpg', name: vpg.name, vpg_id: vpg.id, site: vpg.site, locally_replicated: vpg.locally_replicated },
        { type: 'checkpoint', name: checkpoint.tag ?? checkpoint.id, checkpoint_id: checkpoint.id, timestamp: checkpoint.timestamp, tag: checkpoint.tag },
        { type: 'guest_file', name: args.path, written_to_guest: false, ...(args.partition ? { partition: args.partition } : {}) },
      ],
      summary: `restore ${quoted(args.path)}${partition} of VM ${quoted(found.vm.name)} from checkpoint ${checkpoint.id} (${checkpoint.timestamp}` +
        `${checkpoint.tag ? `, tag ${quoted(checkpoint.tag)}` : ''}) of VPG ${quoted(vpg.name)} at Zerto site ${quoted(vpg.site)}` +
        `${vpg.locally_replicated ? '' : ` (or at its recovery site ${quoted(vpg.recovery_site.name)} if ${quoted(vpg.site)} will not mount it)`}` +
        `${others.length && checkpoint.tag ? `; if no site mounts it, the same tag on ${others.map((v) => `VPG ${quoted(v.name)}`).join(', ')}` : ''}. ${NOTHING_WRITTEN}`,
      zerto: chosen,
    };
    return resolution;
  },
  async execute(args, resolution, ctx) {
    const { found, vpg, checkpoint, partition } = resolution.zerto;
    const zerto = zertoOf(ctx);
    let step = 0;
    const res = await recoverFile(siteOf(zerto, vpg.site).client, {
      // The proposal's VPG first; the VM's other VPGs holding the same tag follow if no site mounts it.
      protection: found, preferVpg: vpg.id, path: args.path, clientOf: (v) => siteOf(zerto, v.site ?? vpg.site).client,
      // The proposal's checkpoint: id (of its VPG), plus its tag and time so the lookup is a small window.
      checkpoint: { id: checkpoint.id, idVpg: vpg.id, timestamp: checkpoint.timestamp, ...(checkpoint.tag ? { tag: checkpoint.tag } : {}) },
      ...(partition ? { partition } : {}),
      restoreDir: zerto.restoreDir, sessionRegistry: zerto.flrSessions, signal: ctx.signal, pollMs: zerto.pollIntervalMs,
      // A remote VPG's recovery site, when configured; the guard's bound also bounds the mount.
      recoverySite: recoverySites(zerto), mountTimeoutMs: zerto.checkpointTimeoutMs,
      ...(zerto.locator ? { locator: zerto.locator } : {}),
      onProgress: (p) => ctx.progress(++step, undefined, p.message),
      onMounted: (site, sessionId) => ctx.change?.running({ kind: 'flr_session', site, session_id: sessionId }),
    });
    return {
      ...res,
      note: res.delivered === 'inline'
        ? 'Content is inline. Nothing was written into the guest: write it back yourself if that is what the user wants.'
        : `Saved to ${res.saved_to} on this server (not inline: binary or over 64 KiB). Nothing was written into the guest.`,
    };
  },
  async dryRun(args, resolution) {
    const { found, vpg, checkpoint } = resolution.zerto;
    const partition = args.partition ? ` from FLR partition '${args.partition}'` : '';
    return { would: `mount checkpoint ${checkpoint.id} of VPG ${quoted(vpg.name)} for ${quoted(found.vm.name)}, download ${args.path}${partition}, unmount; nothing was mounted` };
  },
});

/** A remote VPG's recovery site among the configured ones, matched by site identifier. */
function recoverySites(zerto: ZertoServices) {
  return siteClientLookup(zerto.sites.map((s) => s.client));
}
