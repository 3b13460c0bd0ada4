// vim25 version negotiation, as vCenter does it. A client reads /sdk/vimServiceVersions.xml, picks
// the newest version both sides know and names it in every request's SOAPAction
// (`urn:vim25/6.7.1`). The server then answers in that version's schema: properties and data
// object fields added after it are left out, so an older client (pyVmomi 6.7 asking for
// `vm.summary`) never meets a field it cannot parse.

/** What vCenter 8.0 U2 lists, newest first (current version, then priorVersions). */
const VCENTER_VERSIONS = [
  '8.0.2.0', '8.0.1.0', '8.0.0.2', '8.0.0.1', '8.0.0.0', '7.0.3.2', '7.0.3.1', '7.0.3.0', '7.0.2.1', '7.0.2.0',
  '7.0.1.1', '7.0.1.0', '7.0.0.2', '7.0.0.1', '7.0.0.0', '6.9.1', '6.8.7', '6.7.3', '6.7.2', '6.7.1', '6.7',
  '6.5', '6.0', '5.5', '5.1', '5.0', '4.1', '4.0', '2.5u2server', '2.5u2', '2.5',
];

function parts(v: string): number[] {
  return v.split('.').map((p) => Number.parseInt(p, 10) || 0);
}

/** Dotted numeric comparison: true when `v` >= `min`. */
export function versionAtLeast(v: string, min: string): boolean {
  const a = parts(v);
  const b = parts(min);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** The versions a server running `apiVersion` accepts: it and every older one vCenter lists. */
export function supportedVersions(apiVersion: string): string[] {
  const older = VCENTER_VERSIONS.filter((v) => v !== apiVersion && versionAtLeast(apiVersion, v) && !versionAtLeast(v, apiVersion));
  return [apiVersion, ...older];
}

export function serviceVersionsXml(apiVersion: string): string {
  const [current, ...prior] = supportedVersions(apiVersion);
  return '<?xml version="1.0" encoding="UTF-8" ?>\n<namespaces version="1.0">\n <namespace>\n  <name>urn:vim25</name>\n' +
    `  <version>${current}</version>\n  <priorVersions>\n${prior.map((v) => `   <version>${v}</version>\n`).join('')}` +
    '  </priorVersions>\n </namespace>\n <namespace>\n  <name>urn:vim2</name>\n  <version>2.0</version>\n </namespace>\n</namespaces>\n';
}

/**
 * The version a request is answered in: the one its SOAPAction names when this server supports
 * it, else the server's own (vCenter treats an absent or unknown SOAPAction as its newest version).
 */
export function wireVersionOf(soapAction: string | undefined, apiVersion: string): string {
  const m = /urn:vim25\/([\w.]+)/.exec(soapAction ?? '');
  if (!m) return apiVersion;
  return supportedVersions(apiVersion).includes(m[1]!) ? m[1]! : apiVersion;
}

/**
 * Data object fields the lab emits that are newer than some version a client may negotiate
 * (vSphere API reference, "Since" of each field). Keyed by data object type, then field.
 */
export const FIELD_SINCE: Record<string, Record<string, string>> = {
  VirtualMachineConfigSummary: { hwVersion: '6.9.1' },
  GuestInfo: { customizationInfo: '7.0.2.0' },
};

/** Managed object properties newer than 6.5 that the lab can serve, as `Type.property`. */
const PROPERTY_SINCE: Record<string, string> = {
  'ClusterComputeResource.summaryEx': '7.0.1.1',
  'ClusterComputeResource.hciConfig': '6.7.1',
  'ComputeResource.lifecycleManaged': '7.0.0.0',
  'Folder.namespace': '7.0.0.0',
  'ResourcePool.namespace': '7.0.0.0',
  'HostSystem.remediationState': '7.0.2.0',
  'HostSystem.precheckRemediationResult': '7.0.2.0',
  'HostSystem.remediationResult': '7.0.2.0',
  'HostSystem.complianceCheckState': '7.0.2.0',
  'HostSystem.complianceCheckResult': '7.0.2.0',
};

/** False when `prop` of `type` (or of a base of it) was added after `version`. */
export function propertyKnownAt(type: string, prop: string, version: string, baseOf: (t: string) => string | undefined = () => undefined): boolean {
  for (let t: string | undefined = type; t; t = baseOf(t)) {
    const since = PROPERTY_SINCE[`${t}.${prop}`];
    if (since) return versionAtLeast(version, since);
  }
  return true;
}
