// Builds the inventory tree of one simulated vCenter from the lab topology: root folder ->
// datacenter -> vm/host/datastore/network folders, a cluster with hosts and resource pools,
// nested VM folders from each VM's `folder` path, the named VMs at their fixed moids, and a
// filler folder whose VMs are generated on demand. Moids follow vCenter's conventions
// (group-d1, datacenter-N, domain-cN, host-N, resgroup-N, datastore-N, network-N, vm-N).

import type { LabVcenter } from '../topology.js';
import {
  clusterObject, datacenterObject, datastoreObject, FolderObject, hostObject, networkObject, resourcePoolObject,
  type HostRecord,
} from './entities.js';
import type { Model } from './model.js';
import { hashString } from './seeded.js';
import { ref, type MoRef } from './vim-values.js';
import { walkSnapshots } from './vm-state.js';
import { fillerPlacement, fillerVm, namedVm } from './vm-factory.js';

export interface Inventory {
  rootFolder: string;
  datacenter: string;
  vmFolder: string;
  cluster: string;
  rootPool: string;
  hosts: Map<string, HostRecord>;
  /** name -> moid */
  hostIds: Map<string, string>;
  datastoreIds: Map<string, string>;
  networkIds: Map<string, string>;
  poolIds: Map<string, string>;
  /** VM folder path ('apps/linux') -> folder moid; '' is the datacenter's vmFolder. */
  vmFolders: Map<string, string>;
}

const VM_CHILD_TYPES = ['Folder', 'VirtualMachine', 'VirtualApp'];

export function buildInventory(model: Model, vc: LabVcenter, fillerCount: number, now: number): Inventory {
  let n = 0;
  const id = (): number => (n += 1);
  const root = model.add(new FolderObject(model, 'group-d1', 'Datacenters', undefined, ['Folder', 'Datacenter']));
  n = 1;
  const dcId = `datacenter-${id()}`;
  const dcRef = ref('Datacenter', dcId);
  const vmFolder = model.add(new FolderObject(model, `group-v${id()}`, 'vm', dcRef, VM_CHILD_TYPES));
  const hostFolder = model.add(new FolderObject(model, `group-h${id()}`, 'host', dcRef, ['Folder', 'ComputeResource']));
  const dsFolder = model.add(new FolderObject(model, `group-s${id()}`, 'datastore', dcRef, ['Folder', 'Datastore']));
  const netFolder = model.add(new FolderObject(model, `group-n${id()}`, 'network', dcRef, ['Folder', 'Network']));

  const clusterId = `domain-c${id()}`;
  const clusterRef = ref('ClusterComputeResource', clusterId);
  const rootPoolId = `resgroup-${id()}`;
  const hosts = new Map<string, HostRecord>();
  for (const name of vc.hosts) {
    hosts.set(name, { moid: `host-${id()}`, name, connectionState: 'connected', seed: hashString(`${vc.target}/${name}`) });
  }
  const hostRefs = [...hosts.values()].map((h) => ref('HostSystem', h.moid));
  const datastoreIds = new Map(vc.datastores.map((name) => [name, `datastore-${id()}`]));
  const networkIds = new Map(vc.networks.map((name) => [name, `network-${id()}`]));
  const dsRefs = [...datastoreIds.values()].map((m) => ref('Datastore', m));
  const netRefs = [...networkIds.values()].map((m) => ref('Network', m));

  root.children.push(dcRef);
  model.add(datacenterObject(dcId, vc.datacenter, ref('Folder', root.moid), {
    vm: ref('Folder', vmFolder.moid), host: ref('Folder', hostFolder.moid),
    datastore: ref('Folder', dsFolder.moid), network: ref('Folder', netFolder.moid),
  }, dsRefs, netRefs));
  hostFolder.children.push(clusterRef);
  model.add(clusterObject(clusterId, vc.cluster, ref('Folder', hostFolder.moid), [...hosts.values()], ref('ResourcePool', rootPoolId), dsRefs, netRefs));
  for (const h of hosts.values()) model.add(hostObject(model, h, clusterRef, dsRefs, netRefs, now - 30 * 86400_000));
  for (const [name, moid] of datastoreIds) {
    dsFolder.children.push(ref('Datastore', moid));
    model.add(datastoreObject(model, moid, name, ref('Folder', dsFolder.moid), hostRefs, hashString(`${vc.target}/${name}`)));
  }
  for (const [name, moid] of networkIds) {
    netFolder.children.push(ref('Network', moid));
    model.add(networkObject(model, moid, name, ref('Folder', netFolder.moid), hostRefs));
  }

  const poolIds = new Map(vc.resourcePools.map((name) => [name, `resgroup-${id()}`]));
  const childPools: MoRef[] = [...poolIds.values()].map((m) => ref('ResourcePool', m));
  model.add(resourcePoolObject(model, rootPoolId, 'Resources', clusterRef, clusterRef, childPools));
  for (const [name, moid] of poolIds) {
    model.add(resourcePoolObject(model, moid, name, ref('ResourcePool', rootPoolId), clusterRef, []));
  }

  const vmFolders = new Map<string, string>([['', vmFolder.moid]]);
  const folderFor = (path: string): string => {
    const existing = vmFolders.get(path);
    if (existing) return existing;
    const slash = path.lastIndexOf('/');
    const parentId = folderFor(slash < 0 ? '' : path.slice(0, slash));
    const folder = model.add(new FolderObject(model, `group-v${id() + 100}`, path.slice(slash + 1), ref('Folder', parentId), VM_CHILD_TYPES));
    (model.objects.get(parentId) as FolderObject).children.push(ref('Folder', folder.moid));
    vmFolders.set(path, folder.moid);
    return folder.moid;
  };

  let snapshotIds = 0;
  for (const vm of vc.vms) {
    const state = namedVm(vc.target, vm, {
      host: hosts.get(vm.host)!.moid, datastore: datastoreIds.get(vm.datastore)!, folder: folderFor(vm.folder),
      resourcePool: poolIds.get(vm.resourcePool) ?? rootPoolId, network: networkIds.get(vc.networks[0]!)!,
    }, now, () => ++snapshotIds);
    model.vms.set(state.moid, state);
    for (const { node } of walkSnapshots(state.snapshots)) model.snapshotOwners.set(node.moid, state.moid);
  }
  model.seedCounter(Math.max(snapshotIds, 1000));

  // Fillers: moids start well above the named VMs (vm-1xx/vm-2xx) so they can never collide.
  const fillerFolder = fillerCount > 0 ? folderFor('filler') : vmFolder.moid;
  const fillerPools = {
    hosts: [...hosts.values()].map((h) => h.moid), datastores: [...datastoreIds.values()],
    pools: [...poolIds.values()], networks: [...networkIds.values()], folder: fillerFolder,
  };
  const firstId = 5001;
  // Placements are asked for in bulk (host.vm, pool.vm, container views): three bytes per filler
  // instead of a regenerated VM each time.
  const placed = new Uint8Array(3 * (fillerCount + 1));
  for (let i = 1; i <= fillerCount; i++) {
    const p = fillerPlacement(vc.target, i, fillerPools);
    placed[3 * i] = fillerPools.hosts.indexOf(p.host);
    placed[3 * i + 1] = fillerPools.datastores.indexOf(p.datastore);
    placed[3 * i + 2] = fillerPools.pools.indexOf(p.resourcePool);
  }
  model.filler = {
    count: fillerCount, firstId, folder: fillerFolder,
    generate: (i) => fillerVm(vc.target, `vm-${firstId + i - 1}`, i, fillerPools),
    placement: (i) => ({
      host: fillerPools.hosts[placed[3 * i]!]!, datastore: fillerPools.datastores[placed[3 * i + 1]!]!,
      resourcePool: fillerPools.pools[placed[3 * i + 2]!]!, folder: fillerFolder,
    }),
  };
  return {
    rootFolder: root.moid, datacenter: dcId, vmFolder: vmFolder.moid, cluster: clusterId, rootPool: rootPoolId,
    hosts, hostIds: new Map([...hosts].map(([k, v]) => [k, v.moid])), datastoreIds, networkIds, poolIds, vmFolders,
  };
}

/** First moid number the server may mint for new VMs (clones), clear of named VMs and fillers. */
export function firstCloneId(fillerCount: number): number {
  return 5001 + fillerCount + 1000;
}
