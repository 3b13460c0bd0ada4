// What journal recovery (src/undo/journal-recovery.ts) needs, built from the server's services:
// the Zerto sites and poll interval, and, when vSphere is configured, the VmIdentifier of a VM
// from its vCenter's instanceUuid, which the vCenter still gives after the VM itself was deleted.
import type { JournalRecoveryDeps } from '../../undo/journal-recovery.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import { zertoVmIdentifier } from '../../zerto/index.js';
import type { ZertoServices } from '../../zerto/zerto-services.js';

export function journalRecoveryDeps(zerto: Pick<ZertoServices, 'sites' | 'pollIntervalMs'>, vsphere?: TargetPool, recoveryTimeoutMs?: number): JournalRecoveryDeps {
  return {
    sites: zerto.sites,
    pollIntervalMs: zerto.pollIntervalMs,
    ...(recoveryTimeoutMs !== undefined ? { recoveryTimeoutMs } : {}),
    ...(vsphere ? {
      vmIdentifierOf: async ({ target, moid }, signal) => {
        const about = await vsphere.run(target, (c, call) => c.about(call), { ...(signal ? { signal } : {}), timeoutMs: 30_000 });
        return zertoVmIdentifier(about.instanceUuid, moid);
      },
    } : {}),
  };
}
