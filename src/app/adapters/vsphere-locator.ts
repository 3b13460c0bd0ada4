// The VM locator find-protection uses, backed by the vSphere target pool: a VM name, guest FQDN,
// short hostname or IP -> the VMs that answer to it, with the target's instanceUuid (the
// VmIdentifier prefix). One listing per target (a constant number of round trips), concurrently.
import { AppError } from '../../core/errors.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import type { VmLocator, VmLocatorMatch } from '../../zerto/index.js';
import { ownText } from '../../core/own-text.js';

export function createVsphereLocator(pool: TargetPool, allTargets: string[]): VmLocator {
  return {
    async resolveHostOrName(query, opts = {}) {
      const q = query.trim().toLowerCase();
      const names = opts.targets?.length ? allTargets.filter((t) => opts.targets!.includes(t)) : allTargets;
      const slots = await pool.fanOut(names, async (client, target, call) => {
        const [about, vms] = await Promise.all([client.about(call), client.listVms(call)]);
        const out: VmLocatorMatch[] = [];
        for (const vm of vms) {
          const matchedOn = matchOf(q, vm.name, vm.guest_hostname, vm.ip_address);
          if (!matchedOn) continue;
          out.push({
            target: target.name, moid: vm.moid, name: vm.name, instanceUuid: about.instanceUuid, matchedOn,
            ...(vm.guest_hostname ? { hostname: vm.guest_hostname } : {}),
            ...(vm.ip_address ? { ip: vm.ip_address } : {}),
          });
        }
        return out;
      }, { ...(opts.signal ? { signal: opts.signal } : {}), timeoutMs: 30_000 });
      const failed = slots.filter((s) => 'error' in s);
      const found = slots.flatMap((s) => ('ok' in s ? s.ok : []));
      // A target that could not be searched might hold the VM, or a second VM of that name: any
      // answer without it would read as complete (and hide an ambiguity), so the failure is raised.
      if (failed.length > 0) {
        const e = failed[0] as { target: string; error: { message: string } };
        throw new AppError('unreachable', `vSphere target '${e.target}' could not be searched for ${JSON.stringify(query)}: ${e.error.message}`, {
          hint: ownText('Retry when the vCenter answers, or pass the VM name or VmIdentifier.'),
        });
      }
      return found;
    },
  };
}

function matchOf(q: string, name: string, hostname: string | null, ip: string | null): VmLocatorMatch['matchedOn'] | undefined {
  if (name.toLowerCase() === q) return 'name';
  const h = hostname?.toLowerCase();
  if (h && h === q) return 'hostname';
  if (h && h.split('.')[0] === q) return 'short_hostname';
  if (ip && ip === q) return 'ip';
  return undefined;
}
