// Which checkpoint a VM's files come back from: the one the guard pinned for that VM before the
// change (its tag names the same point on every VPG of the VM; the id, time and VPG narrow the
// lookup), and the VM's protection across the configured Zerto sites.
import type { PinnedCheckpoint } from '../core/guard.js';
import type { GuestPathTouched } from '../downstream/guest-paths.js';
import { findProtectionAnywhere, type FoundAnywhere } from '../zerto/protection.js';
import type { ZertoServices } from '../zerto/zerto-services.js';
import type { CheckpointQuery } from '../zerto/index.js';
import type { PinnedCheckpointRef } from './guest-file-restore.js';

export interface VmCheckpoint {
  query: CheckpointQuery;
  /** The VPG the id belongs to, tried first. */
  vpgId: string;
}

/** The checkpoint pinned for the VM, or undefined when the guard pinned none for it. */
export function checkpointOf(ref: PinnedCheckpointRef, vmName: string): VmCheckpoint | undefined {
  if (ref.status !== 'checkpointed' || !ref.checkpoints?.length) return undefined;
  // One VM per call is the gateway's case; a record naming VMs picks this one's checkpoints.
  const named = ref.checkpoints.some((c) => c.vm !== undefined);
  const mine: PinnedCheckpoint[] = named ? ref.checkpoints.filter((c) => c.vm !== undefined && c.vm.toLowerCase() === vmName.toLowerCase()) : ref.checkpoints;
  const first = mine[0];
  if (!first) return undefined;
  const tag = first.tag ?? ref.tag;
  return {
    vpgId: first.vpg_id,
    query: { id: first.checkpoint_id, idVpg: first.vpg_id, timestamp: first.timestamp, ...(tag ? { tag } : {}) },
  };
}

/** The VM's protection, looked up by the name vSphere gave it, on its vSphere target's sites when known. */
export function findVm(zerto: ZertoServices, vm: GuestPathTouched['vm'], signal: AbortSignal): Promise<FoundAnywhere> {
  return findProtectionAnywhere(zerto, { query: vm.name, includeRecovered: true, ...(vm.target ? { target: vm.target } : {}), signal });
}
