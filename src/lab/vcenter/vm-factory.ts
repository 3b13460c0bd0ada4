// Creates VmState records: the named topology VMs (fixed moids, hostnames, IPs, snapshots) and
// filler VMs, which are a pure function of their index so the model can regenerate them instead
// of storing them.

import type { LabVm } from '../topology.js';
import { hashString, pick, rng, uuidFrom } from './seeded.js';
import type { SnapshotNode, VmState } from './vm-state.js';

/** Fixed origin for generated dates, so the inventory is identical on every run. */
export const LAB_EPOCH = Date.UTC(2024, 0, 15, 9, 0, 0);

const GUESTS = {
  linux: { guestId: 'ubuntu64Guest', guestFullName: 'Ubuntu Linux (64-bit)' },
  windows: { guestId: 'windows2019srv_64Guest', guestFullName: 'Microsoft Windows Server 2019 (64-bit)' },
} as const;

export interface Placement {
  host: string;
  datastore: string;
  folder: string;
  resourcePool: string;
  network: string;
}

function baseState(target: string, moid: string, name: string, os: 'linux' | 'windows', p: Placement): VmState {
  const seed = hashString(`${target}/${moid}`);
  return {
    moid, name, os, ...GUESTS[os],
    instanceUuid: uuidFrom(seed),
    uuid: uuidFrom(seed ^ 0x5bd1e995),
    createDate: LAB_EPOCH + (seed % 240) * 3600_000,
    template: false, annotation: '', numCpu: 1, memoryMB: 1024, diskGB: 16 + (seed % 5) * 16,
    powerState: 'poweredOff', connectionState: 'connected',
    host: p.host, datastore: p.datastore, folder: p.folder, resourcePool: p.resourcePool, defaultNetwork: p.network,
    hostName: '', ipAddress: '', toolsInstalled: true,
    snapshots: [], customization: { status: 'TOOLSDEPLOYPKG_IDLE' }, recentTasks: [], seed,
  };
}

/** A named topology VM. `nextSnapshotId` mints snapshot moids (`snapshot-<n>`). */
export function namedVm(target: string, vm: LabVm, p: Placement, now: number, nextSnapshotId: () => number): VmState {
  const s = baseState(target, vm.moid, vm.name, vm.os, p);
  s.numCpu = vm.numCpu;
  s.memoryMB = vm.memoryMB;
  s.powerState = vm.powerState;
  s.connectionState = vm.connectionState ?? 'connected';
  s.hostName = vm.hostname;
  s.ipAddress = vm.ip;
  if (vm.powerState === 'poweredOn') s.bootTime = now - (s.seed % 72 + 1) * 3600_000;
  if (vm.powerState === 'suspended') s.suspendTime = now - 3600_000;
  // Topology snapshots form a chain, oldest first, the way repeated snapshotting builds them.
  let siblings: SnapshotNode[] = s.snapshots;
  (vm.snapshots ?? []).forEach((name, i, all) => {
    const id = nextSnapshotId();
    const node: SnapshotNode = {
      moid: `snapshot-${id}`, id: i + 1, name, description: `lab snapshot ${name}`,
      createTime: now - (all.length - i) * 86400_000, powerState: vm.powerState, quiesced: false, children: [],
    };
    siblings.push(node);
    siblings = node.children;
    s.currentSnapshot = node.moid;
  });
  return s;
}

export interface FillerPools {
  hosts: string[];
  datastores: string[];
  pools: string[];
  networks: string[];
  folder: string;
}

function fillerRng(target: string, index: number): () => number {
  return rng(hashString(target) ^ Math.imul(index, 2654435761));
}

/** Where filler `index` lives; the same draws `fillerVm` makes, without building the VM. */
export function fillerPlacement(target: string, index: number, pools: FillerPools): Placement {
  const r = fillerRng(target, index);
  r(); // os
  return {
    host: pick(r, pools.hosts), datastore: pick(r, pools.datastores), folder: pools.folder,
    resourcePool: pick(r, pools.pools), network: pools.networks[0]!,
  };
}

/** Filler VM `index` (1-based): powered off, unprotected, deterministic. */
export function fillerVm(target: string, moid: string, index: number, pools: FillerPools): VmState {
  const r = fillerRng(target, index);
  const os = r() < 0.25 ? 'windows' : 'linux';
  const name = `${target}-filler-${String(index).padStart(5, '0')}`;
  const s = baseState(target, moid, name, os, fillerPlacement(target, index, pools));
  for (let i = 0; i < 3; i++) r(); // the placement draws (host, datastore, pool)
  s.numCpu = pick(r, [1, 2, 2, 4]);
  s.memoryMB = pick(r, [1024, 2048, 4096, 8192]);
  s.hostName = `${name}.lab.local`;
  s.ipAddress = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  return s;
}
