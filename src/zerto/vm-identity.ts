// The one place that says how a vSphere VM maps to Zerto's VmIdentifier. Zerto documents the
// format as `serverid.moref`; that the server id is the vCenter's `about.instanceUuid` is INFERRED
// (docs/zerto-notes.md). If a real ZVM disagrees, only this file changes, and find-protection
// falls back to the VM name within the site's vcenter_targets meanwhile.

/** Zerto's VmIdentifier for a vSphere VM. */
export function zertoVmIdentifier(instanceUuid: string, moid: string): string {
  return `${instanceUuid.toLowerCase()}.${moid}`;
}

const VM_IDENTIFIER = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.((?:vm|vapp|resgroup)-\d+)$/i;

/** Splits `<serverid>.<moref>`; null for anything else (cloud VM ids, names). */
export function parseZertoVmIdentifier(id: string): { serverId: string; moref: string } | null {
  const m = VM_IDENTIFIER.exec(id.trim());
  return m ? { serverId: m[1]!.toLowerCase(), moref: m[2]! } : null;
}

/** Whether a query should be treated as a VmIdentifier rather than a name or hostname. */
export function looksLikeVmIdentifier(query: string): boolean {
  return parseZertoVmIdentifier(query) !== null;
}

/** Identifier equality: GUID prefixes compare case-insensitively, morefs as written. */
export function sameVmIdentifier(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Whether a query looks like a guest FQDN or an IP address rather than a VM name. */
export function looksLikeHostOrIp(query: string): boolean {
  const q = query.trim();
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(q) || (q.includes(':') && /^[0-9a-f:]+$/i.test(q))) return true;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(q);
}
