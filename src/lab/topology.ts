// The simulated lab's fixed shape: the one place that says which vCenters, VMs, guests and VPGs
// exist. The simulated vCenter builds its inventory from it and the simulated ZVM builds its VM
// identifiers (`<instanceUuid>.<moid>`) from it, so the two simulators always agree, the way a
// real ZVM and the vCenter it pairs with do.

export type GuestOs = 'linux' | 'windows';

export interface LabVm {
  /** Fixed moid so the ZVM's VmIdentifier can be built from it. */
  moid: string;
  name: string;
  /** Guest hostname as VMware Tools reports it (`guest.hostName`). */
  hostname: string;
  /** Documentation range (RFC 5737): fake data, never contacted. */
  ip: string;
  os: GuestOs;
  powerState: 'poweredOn' | 'poweredOff' | 'suspended';
  connectionState?: 'connected' | 'orphaned' | 'inaccessible' | 'invalid' | 'disconnected';
  numCpu: number;
  memoryMB: number;
  /** Host name (from LabVcenter.hosts) the VM runs on. */
  host: string;
  datastore: string;
  /** Folder path below the datacenter's vmFolder, e.g. 'apps/linux'. */
  folder: string;
  resourcePool: string;
  /** Initial guest files (absolute guest paths). Linux: '/etc/app.conf'; Windows: 'C:\\app\\app.ini'. */
  files: Record<string, string>;
  snapshots?: string[];
}

export interface LabVcenter {
  /** targets.yaml name used in lab mode. */
  target: string;
  /** `about.instanceUuid`; Zerto's VmIdentifier prefix. */
  instanceUuid: string;
  credentialPrefix: string;
  datacenter: string;
  cluster: string;
  hosts: string[];
  datastores: string[];
  networks: string[];
  resourcePools: string[];
  vms: LabVm[];
  /** Extra generated VMs (`<target>-filler-0001` ...) so listings page; powered off, unprotected. */
  fillerVms: number;
  tags: string[];
}

export interface LabVpg {
  id: string;
  name: string;
  /** Zerto site name (LabZertoSite.name) the VPG is protected at. */
  protectedSite: string;
  recoverySite: string;
  /** VMs by (vCenter target, moid); `cloudVm` for a VM that lives in a public cloud. */
  vms: Array<{ target: string; moid: string } | { cloudVm: string; identifier: string }>;
}

export interface LabZertoSite {
  /** config.json site name in lab mode. */
  name: string;
  siteIdentifier: string;
  /** `SiteType` of /v1/localsite. 'VCenter' for a vSphere ZVM; 'Azure' for a ZCA in Azure. */
  siteType: 'VCenter' | 'Azure' | 'Aws';
  /** Whether this site runs a ZVM this server talks to (peers that only appear as links do not). */
  served: boolean;
  credentialPrefix: string;
  /** targets.yaml names whose VMs this site protects. */
  vcenterTargets: string[];
  /**
   * The vCenter this site recovers into: where its ZVM creates the VMs of a clone or a failover
   * test from the journal. None for a site that recovers nowhere in the lab (the cloud one).
   */
  recoveryTarget?: string;
}

export const LAB_VCENTERS: LabVcenter[] = [
  {
    target: 'lab-vc1',
    instanceUuid: '4f3c1a2e-7d1b-4c5e-9a10-1b2c3d4e5f01',
    credentialPrefix: 'LAB_VC1',
    datacenter: 'LabDC1',
    cluster: 'LabCluster1',
    hosts: ['esx-01.lab.local', 'esx-02.lab.local'],
    datastores: ['ds-ssd-01', 'ds-nfs-01'],
    networks: ['VM Network', 'Prod-VLAN20'],
    resourcePools: ['Production', 'Test'],
    fillerVms: 40,
    tags: ['env:lab', 'site:a'],
    vms: [
      {
        moid: 'vm-101', name: 'app-01', hostname: 'app-01.lab.local', ip: '192.0.2.11', os: 'linux',
        powerState: 'poweredOn', numCpu: 2, memoryMB: 4096, host: 'esx-01.lab.local', datastore: 'ds-ssd-01',
        folder: 'apps/linux', resourcePool: 'Production',
        files: { '/etc/app.conf': 'listen_port = 8080\nmax_connections = 200\nlog_level = info\n' },
        snapshots: ['before-patch'],
      },
      {
        moid: 'vm-102', name: 'web-01', hostname: 'web-01.lab.local', ip: '192.0.2.12', os: 'linux',
        powerState: 'poweredOn', numCpu: 2, memoryMB: 2048, host: 'esx-01.lab.local', datastore: 'ds-ssd-01',
        folder: 'apps/linux', resourcePool: 'Production',
        files: { '/etc/nginx/nginx.conf': 'worker_processes auto;\n' },
      },
      {
        moid: 'vm-103', name: 'web-02', hostname: 'web-02.lab.local', ip: '192.0.2.13', os: 'linux',
        powerState: 'poweredOff', numCpu: 2, memoryMB: 2048, host: 'esx-02.lab.local', datastore: 'ds-nfs-01',
        folder: 'apps/linux', resourcePool: 'Test',
        files: { '/etc/nginx/nginx.conf': 'worker_processes 2;\n' },
      },
      {
        moid: 'vm-104', name: 'win-app-01', hostname: 'win-app-01.lab.local', ip: '192.0.2.14', os: 'windows',
        powerState: 'poweredOn', numCpu: 4, memoryMB: 8192, host: 'esx-02.lab.local', datastore: 'ds-ssd-01',
        folder: 'apps/windows', resourcePool: 'Production',
        files: { 'C:\\app\\app.ini': '[server]\nport=8443\nthreads=16\n' },
      },
      {
        // Two VMs share this name on purpose: name resolution must refuse to guess.
        moid: 'vm-105', name: 'dup-01', hostname: 'dup-01a.lab.local', ip: '192.0.2.15', os: 'linux',
        powerState: 'poweredOff', numCpu: 1, memoryMB: 1024, host: 'esx-01.lab.local', datastore: 'ds-nfs-01',
        folder: 'scratch', resourcePool: 'Test', files: {},
      },
      {
        moid: 'vm-106', name: 'dup-01', hostname: 'dup-01b.lab.local', ip: '192.0.2.16', os: 'linux',
        powerState: 'poweredOff', numCpu: 1, memoryMB: 1024, host: 'esx-02.lab.local', datastore: 'ds-nfs-01',
        folder: 'scratch/old', resourcePool: 'Test', files: {},
      },
      {
        // An orphaned record: vCenter disables Destroy_Task and CreateSnapshot_Task on it.
        moid: 'vm-107', name: 'ghost-01', hostname: 'ghost-01.lab.local', ip: '192.0.2.17', os: 'linux',
        powerState: 'poweredOff', connectionState: 'orphaned', numCpu: 1, memoryMB: 1024,
        host: 'esx-02.lab.local', datastore: 'ds-nfs-01', folder: 'scratch', resourcePool: 'Test', files: {},
      },
      {
        moid: 'vm-108', name: 'test-01', hostname: 'test-01.lab.local', ip: '192.0.2.18', os: 'linux',
        powerState: 'poweredOn', numCpu: 1, memoryMB: 1024, host: 'esx-01.lab.local', datastore: 'ds-nfs-01',
        folder: 'scratch', resourcePool: 'Test', files: { '/etc/motd': 'test box\n' },
        snapshots: ['clean-install'],
      },
    ],
  },
  {
    target: 'lab-vc2',
    instanceUuid: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c02',
    credentialPrefix: 'LAB_VC2',
    datacenter: 'LabDC2',
    cluster: 'LabCluster2',
    hosts: ['esx-11.lab.local'],
    datastores: ['ds-vsan-02'],
    networks: ['VM Network'],
    resourcePools: ['Production'],
    fillerVms: 20,
    tags: ['env:lab', 'site:b'],
    vms: [
      {
        moid: 'vm-201', name: 'erp-01', hostname: 'erp-01.lab.local', ip: '198.51.100.21', os: 'linux',
        powerState: 'poweredOn', numCpu: 4, memoryMB: 16384, host: 'esx-11.lab.local', datastore: 'ds-vsan-02',
        folder: 'erp', resourcePool: 'Production', files: { '/etc/erp/erp.conf': 'tenant = acme\n' },
      },
      {
        moid: 'vm-202', name: 'win-file-01', hostname: 'win-file-01.lab.local', ip: '198.51.100.22', os: 'windows',
        powerState: 'poweredOn', numCpu: 2, memoryMB: 4096, host: 'esx-11.lab.local', datastore: 'ds-vsan-02',
        folder: 'files', resourcePool: 'Production', files: { 'C:\\share\\readme.txt': 'file server\r\n' },
      },
      {
        moid: 'vm-203', name: 'scratch-01', hostname: 'scratch-01.lab.local', ip: '198.51.100.23', os: 'linux',
        powerState: 'poweredOff', numCpu: 1, memoryMB: 512, host: 'esx-11.lab.local', datastore: 'ds-vsan-02',
        folder: 'scratch', resourcePool: 'Production', files: {},
      },
    ],
  },
];

export const LAB_ZERTO_SITES: LabZertoSite[] = [
  {
    name: 'lab-zvm', siteIdentifier: '5a5a5a5a-1111-4222-8333-944444444444', siteType: 'VCenter', served: true,
    credentialPrefix: 'LAB_ZVM', vcenterTargets: ['lab-vc1', 'lab-vc2'], recoveryTarget: 'lab-vc1',
  },
  {
    // A second on-prem ZVM, the recovery site of vpg-erp-dr: FLR of that VPG may have to run here.
    // It protects nothing itself, so it claims no vCenter target.
    name: 'lab-zvm-dr', siteIdentifier: '6b6b6b6b-2222-4333-8444-a55555555555', siteType: 'VCenter', served: true,
    // Its recovered VMs land on lab-vc1, so a DR clone of erp-01 (production on lab-vc2) shows
    // up in another vCenter than the one it came from.
    credentialPrefix: 'LAB_ZVM_DR', vcenterTargets: [], recoveryTarget: 'lab-vc1',
  },
  {
    // A Zerto Cloud Appliance in Azure: tagged checkpoints cannot be inserted on VPGs it protects.
    name: 'lab-zca-azure', siteIdentifier: '7c7c7c7c-3333-4444-8555-b66666666666', siteType: 'Azure', served: true,
    credentialPrefix: 'LAB_ZCA', vcenterTargets: [],
  },
];

export const LAB_VPGS: LabVpg[] = [
  // app-01 is protected by two local VPGs: both must get the same tag.
  { id: 'aaaaaaaa-0000-4000-8000-000000000001', name: 'vpg-app', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm',
    vms: [{ target: 'lab-vc1', moid: 'vm-101' }, { target: 'lab-vc1', moid: 'vm-102' }] },
  { id: 'aaaaaaaa-0000-4000-8000-000000000002', name: 'vpg-app-critical', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm',
    vms: [{ target: 'lab-vc1', moid: 'vm-101' }] },
  { id: 'aaaaaaaa-0000-4000-8000-000000000003', name: 'vpg-windows', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm',
    vms: [{ target: 'lab-vc1', moid: 'vm-104' }, { target: 'lab-vc2', moid: 'vm-202' }] },
  // Replicates to the DR site: FLR would have to run there.
  { id: 'aaaaaaaa-0000-4000-8000-000000000004', name: 'vpg-erp-dr', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm-dr',
    vms: [{ target: 'lab-vc2', moid: 'vm-201' }] },
  // win-file-01 is in three VPGs (Zerto's maximum): two replicating to the DR site, whose names
  // sort first, and vpg-windows, replicated locally. A restore by tag must not stop at the first
  // VPG that lists the tag when its site refuses to mount it.
  { id: 'aaaaaaaa-0000-4000-8000-000000000006', name: 'vpg-files-archive', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm-dr',
    vms: [{ target: 'lab-vc2', moid: 'vm-202' }] },
  { id: 'aaaaaaaa-0000-4000-8000-000000000007', name: 'vpg-files-dr', protectedSite: 'lab-zvm', recoverySite: 'lab-zvm-dr',
    vms: [{ target: 'lab-vc2', moid: 'vm-202' }] },
  // Protected in Azure (served by lab-zca-azure), recovering to the on-prem ZVM.
  { id: 'aaaaaaaa-0000-4000-8000-000000000005', name: 'vpg-azure-web', protectedSite: 'lab-zca-azure', recoverySite: 'lab-zvm',
    vms: [{ cloudVm: 'az-web-01', identifier: 'azure-vm-7f1e2d3c' }] },
];

/** Zerto's VmIdentifier for a lab VM: `<vcenter instanceUuid>.<moid>`. */
export function labVmIdentifier(target: string, moid: string): string {
  const vc = LAB_VCENTERS.find((v) => v.target === target);
  if (!vc) throw new Error(`unknown lab vCenter ${target}`);
  return `${vc.instanceUuid}.${moid}`;
}

/** Fixed lab credentials; lab mode puts them into the injected secret source, never into files. */
export const LAB_CREDENTIALS = { user: 'lab-admin@vsphere.local', password: 'lab-Passw0rd!' } as const;

/**
 * The lab Keycloak's confidential client (client_credentials grant), the only grant Zerto's own
 * SDK uses. Printed in the lab banner so third-party clients can be pointed at `--lab`.
 */
export const LAB_ZERTO_CLIENT = { id: 'lab-api-client', secret: 'lab-client-secret-0000' } as const;
