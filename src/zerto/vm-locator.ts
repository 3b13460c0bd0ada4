// The port find-protection uses to reach vSphere. app/build-server.ts wires it to the vSphere TargetPool;
// Zerto-only deployments pass nothing, and find-protection then matches names and identifiers only
// and says that hostname and IP lookups need vSphere.

export interface VmLocatorMatch {
  /** targets.yaml name of the vCenter / ESXi the VM lives on. */
  target: string;
  moid: string;
  /** vCenter inventory name. */
  name: string;
  /** `guest.hostName` as VMware Tools reports it. */
  hostname?: string;
  /** One guest IP (`guest.ipAddress`). */
  ip?: string;
  /** `about.instanceUuid` of the target: the VmIdentifier prefix. */
  instanceUuid: string;
  /** What the query matched, when the locator knows; otherwise inferred by comparing with `name`. */
  matchedOn?: 'name' | 'hostname' | 'short_hostname' | 'ip';
}

export interface VmLocator {
  /**
   * VMs whose name, guest FQDN, short hostname or IP equals `query`. `targets` limits the search
   * to those targets when given (implementations may search more; callers filter again).
   */
  resolveHostOrName(query: string, opts?: { targets?: string[]; signal?: AbortSignal }): Promise<VmLocatorMatch[]>;
}
