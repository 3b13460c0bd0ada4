// The guard port (core/guard.ts) implemented with Zerto: plan = find the VPGs protecting each VM
// (at every configured site that may protect it), pin = one tag per VM on every VPG protecting it,
// waiting until each is listed. A ZVM that cannot answer makes protection "unknown", never
// "unprotected": best_effort must not wave a change through because the ZVM was down.
import { AppError, isAppError, toPublicError } from '../../core/errors.js';
import type { CheckpointGuard, GuardPlan, GuardVm, PinnedCheckpoint, PinRequest } from '../../core/guard.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import { formatTag, pinTaggedCheckpoint, zertoVmIdentifier } from '../../zerto/index.js';
import { findProtectionAnywhere } from './protection.js';
import { siteNamed, type ZertoServices } from './services.js';

const DEFINITELY_UNPROTECTED = new Set(['not_protected']);

export function createZertoGuard(zerto: ZertoServices, vsphere?: TargetPool): CheckpointGuard {
  /** The VmIdentifier when the VM's target and moid are known, else whatever name the caller had. */
  async function queryFor(vm: GuardVm, signal: AbortSignal): Promise<string> {
    if (vm.target && vm.moid && vsphere) {
      const about = await vsphere.run(vm.target, (c, call) => c.about(call), { signal, timeoutMs: 30_000 });
      return zertoVmIdentifier(about.instanceUuid, vm.moid);
    }
    return vm.name;
  }

  return {
    async plan(vms, signal) {
      const plan: GuardPlan = { protection: 'unprotected', vpgs: [], unprotectedVms: [] };
      const reasons: string[] = [];
      await Promise.all(vms.map(async (vm) => {
        try {
          const query = await queryFor(vm, signal);
          const found = await findProtectionAnywhere(zerto, { query, ...(vm.target ? { target: vm.target } : {}), signal });
          for (const v of found.vpgs) plan.vpgs.push({ vm: vm.name, vpg: v.name, vpg_id: v.id, site: v.site });
        } catch (err) {
          const e = toPublicError(err);
          if (DEFINITELY_UNPROTECTED.has(e.code) && !(e.details && 'protected_elsewhere' in e.details)) {
            plan.unprotectedVms.push(vm.name);
            return;
          }
          // not_found/ambiguous for a caller-named VM are the caller's problem: raise them as they are.
          if (isAppError(err) && (e.code === 'not_found' || e.code === 'ambiguous_name')) throw err;
          reasons.push(`${vm.name}: ${e.message}`);
        }
      }));
      if (reasons.length) return { ...plan, protection: 'unknown', reason: reasons.join('; ') };
      if (plan.vpgs.length) plan.protection = 'protected';
      return plan;
    },

    async pin(plan, req) {
      // One pin per (VM, site): a VM's VPGs are pinned through the site that protects each of them.
      const groups = new Map<string, { vm: string; site: string; vpgs: Array<{ id: string; name: string }> }>();
      for (const v of plan.vpgs) {
        const key = `${v.vm}\u0000${v.site}`;
        const g = groups.get(key) ?? { vm: v.vm, site: v.site, vpgs: [] };
        if (!g.vpgs.some((x) => x.id === v.vpg_id)) g.vpgs.push({ id: v.vpg_id, name: v.vpg });
        groups.set(key, g);
      }
      // One clock reading for the call, so a VM pinned at two sites carries the same tag at both.
      const at = new Date();
      const tags: string[] = [];
      const checkpoints: PinnedCheckpoint[] = [];
      const failures: Array<{ vm: string; err: unknown }> = [];
      await Promise.all([...groups.values()].map(async ({ vm, site, vpgs }) => {
        try {
          const s = siteNamed(zerto, site);
          if (!s) throw new AppError('checkpoint_failed', `Zerto site '${site}' is not configured.`);
          const res = await pinTaggedCheckpoint(s.client, {
            vpgs, agent: req.agent, action: req.action, vm, changeId: req.changeId, now: () => at,
            timeoutMs: zerto.checkpointTimeoutMs, pollMs: zerto.pollIntervalMs, signal: req.signal,
            onProgress: (p) => req.onProgress?.(`${vm}: ${p.message}`),
          });
          if (!tags.includes(res.tag)) tags.push(res.tag);
          for (const c of res.checkpoints) checkpoints.push({ vpg: c.vpg, vpg_id: c.vpg_id, checkpoint_id: c.checkpoint_id, timestamp: c.timestamp, site, vm, tag: res.tag });
        } catch (err) {
          failures.push({ vm, err });
        }
      }));
      if (failures.length === 1 && groups.size === 1) throw failures[0]!.err;
      if (failures.length) {
        // Keep the first failure's code (checkpoint_timeout stays a timeout) and say what did get pinned.
        const first = toPublicError(failures[0]!.err);
        const failed = failures.map((f) => `${f.vm}: ${toPublicError(f.err).message}`);
        throw new AppError(first.code, `Checkpoints could not be pinned for every VM, so the change was not made: ${failed.join('; ')}.`, {
          retryable: first.retryable,
          details: { pinned: checkpoints, failed },
          hint: 'Checkpoints already pinned stay in the journal (harmless). Fix the failing VPG and retry with the same change_id: pinned ones are reused.',
        });
      }
      return { tag: tags[0] ?? '', tags, checkpoints };
    },

    tagFor(req: Omit<PinRequest, 'signal'>) {
      return formatTag({ agent: req.agent, action: req.action, vm: req.vms[0]?.name ?? 'unknown', change: req.changeId, at: new Date() });
    },
  };
}
