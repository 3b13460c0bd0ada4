// The guard port (core/guard.ts) implemented with Zerto: plan = find the VPGs protecting each VM
// (at every configured site that may protect it), pinEach = one tag per VM on every VPG
// protecting it, waiting until each is listed. This is the one place that pins for several VMs:
// the pipeline's guard and pin steps all come here. A ZVM that
// cannot answer makes protection "unknown", never "unprotected": best_effort must not wave a
// change through because the ZVM was down.
import { AppError, isAppError, toPublicError } from '../../core/errors.js';
import type { CheckpointGuard, GuardPlan, GuardVm, PinReport, PinRequest } from '../../core/guard.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import { describeHistory, formatTag, pinTaggedCheckpoint, zertoVmIdentifier } from '../../zerto/index.js';
import { findProtectionAnywhere, sitesFor, type FoundAnywhere } from '../../zerto/protection.js';
import { siteNamed, type ZertoServices } from '../../zerto/zerto-services.js';
import { ownText } from '../../core/own-text.js';

export function createZertoGuard(zerto: ZertoServices, vsphere?: TargetPool): CheckpointGuard {
  /** The VmIdentifier Zerto is expected to use for a VM whose target and moid are known. */
  async function identifierOf(vm: GuardVm, signal: AbortSignal): Promise<string | undefined> {
    if (!vm.target || !vm.moid || !vsphere) return undefined;
    const about = await vsphere.run(vm.target, (c, call) => c.about(call), { signal, timeoutMs: 30_000 });
    return zertoVmIdentifier(about.instanceUuid, vm.moid);
  }

  /**
   * When the identifier lookup finds nothing: the `<instanceUuid>.<moid>` mapping is inferred, so a
   * VM Zerto knows under another identifier would read as unprotected and be changed unguarded.
   * Zerto is asked for the VM's name; no row by that name means unprotected for sure, a match
   * whose vSphere identity is this very VM (target + moid) means protected, anything else is
   * unknown (denied under best_effort, as the guard cannot tell).
   */
  async function byVerifiedName(vm: GuardVm, id: string, signal: AbortSignal): Promise<FoundAnywhere | 'unprotected'> {
    const sites = sitesFor(zerto, { ...(vm.target ? { target: vm.target } : {}) });
    const rows = await Promise.all(sites.map((s) => s.client.listVms({ vmName: vm.name }, signal)));
    if (rows.every((r) => r.every((row) => row.VmName !== vm.name))) return 'unprotected';
    const found = await findProtectionAnywhere(zerto, { query: vm.name, ...(vm.target ? { target: vm.target } : {}), signal });
    const home = found.vm.vsphere;
    // By identity, not target name: a second target reaching the same vCenter names the same VM.
    if (home && zertoVmIdentifier(home.instance_uuid, home.moid) === id) return found;
    throw new AppError('protection_unknown', `Zerto lists a VM named ${JSON.stringify(vm.name)}, but not under this VM's identifier (${vm.target}/${vm.moid}), so the guard cannot tell whether it protects this VM.`, {
      hint: ownText("Check the site's vcenter_targets and the VM's identity in Zerto (zerto_find_protection)."),
    });
  }

  async function protectionOf(vm: GuardVm, signal: AbortSignal): Promise<FoundAnywhere | 'unprotected'> {
    const id = await identifierOf(vm, signal);
    try {
      return await findProtectionAnywhere(zerto, { query: id ?? vm.name, ...(vm.target ? { target: vm.target } : {}), signal });
    } catch (err) {
      const e = toPublicError(err);
      const definite = e.code === 'not_protected' && !(e.details && 'protected_elsewhere' in e.details);
      if (!definite) throw err;
      return id ? byVerifiedName(vm, id, signal) : 'unprotected';
    }
  }

  return {
    async plan(vms, signal) {
      const plan: GuardPlan = { protection: 'unprotected', vpgs: [], unprotectedVms: [] };
      const reasons: string[] = [];
      await Promise.all(vms.map(async (vm) => {
        try {
          const found = await protectionOf(vm, signal);
          if (found === 'unprotected') {
            plan.unprotectedVms.push(vm.name);
            return;
          }
          for (const v of found.vpgs) {
            const kept = v.journal_history_minutes ? { kept_for: `journal keeps ${describeHistory(v.journal_history_minutes)}` } : {};
            plan.vpgs.push({ vm: vm.name, vpg: v.name, vpg_id: v.id, site: v.site, ...kept });
          }
        } catch (err) {
          const e = toPublicError(err);
          // not_found/ambiguous for a caller-named VM are the caller's problem: raise them as they are.
          if (isAppError(err) && (e.code === 'not_found' || e.code === 'ambiguous_name') && !vm.moid) throw err;
          reasons.push(`${vm.name}: ${e.message}`);
        }
      }));
      if (reasons.length) return { ...plan, protection: 'unknown', reason: reasons.join('; ') };
      if (plan.vpgs.length) plan.protection = 'protected';
      return plan;
    },

    async pinEach(plan, req) {
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
      const settled = await Promise.allSettled([...groups.values()].map(async ({ vm, site, vpgs }) => {
        const s = siteNamed(zerto, site);
        if (!s) throw new AppError('checkpoint_failed', `Zerto site '${site}' is not configured.`);
        const res = await pinTaggedCheckpoint(s.client, {
          vpgs, agent: req.agent, action: req.action, vm, changeId: req.changeId, argsHash: req.argsHash, now: () => at,
          timeoutMs: zerto.checkpointTimeoutMs, pollMs: zerto.pollIntervalMs, signal: req.signal,
          onProgress: (p) => req.onProgress?.(vm, p.progress, p.message),
        });
        return { vm, site, tag: res.tag, change_id: res.change_id, checkpoints: res.checkpoints };
      }));
      const list = [...groups.values()];
      const report: PinReport = { groups: list.length, pinned: [], failed: [] };
      settled.forEach((r, i) => {
        if (r.status === 'fulfilled') report.pinned.push(r.value);
        else report.failed.push({ vm: list[i]!.vm, site: list[i]!.site, error: r.reason });
      });
      return report;
    },

    tagFor(req: Omit<PinRequest, 'signal'>) {
      return formatTag({ agent: req.agent, action: req.action, vm: req.vms[0]?.name ?? 'unknown', change: req.changeId, at: new Date(), ...(req.argsHash ? { args: req.argsHash } : {}) });
    },
  };
}
