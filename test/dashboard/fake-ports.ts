// An in-memory DashboardPorts: a small but real implementation (proposals with a lifecycle, an audit
// trail, per-target inventory with an unreachable target), so the dashboard tests and the browser
// tests observe behaviour instead of asserting that a mock was called.
import type {
  DashboardAuditQuery,
  DashboardInventory,
  DashboardPorts,
  DashboardProposal,
  DashboardTarget,
  InventoryKind,
} from '../../src/dashboard/ports.js';

export const XSS_NAME = '<img src=x onerror=alert(1)>';

type Items = Record<InventoryKind, Array<Record<string, unknown>>>;

class PortError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class FakeDashboardPorts implements DashboardPorts {
  readonly proposals = new Map<string, DashboardProposal>();
  /** Every confirm/cancel that reached the port, in order. */
  readonly decisions: Array<{ op: 'confirm' | 'cancel'; id: string; approver: string }> = [];
  readonly audit: Array<Record<string, unknown>> = [];
  /** Tools whose execution fails, to exercise the `failed` outcome. */
  readonly failingTools = new Set<string>();
  private seq = 0;

  constructor(
    private readonly targetList: DashboardTarget[],
    private readonly inventoryByTarget: Record<string, Items | { error: { code: string; message: string; retryable: boolean } }>,
  ) {}

  addProposal(p: Partial<DashboardProposal> & { tool: string; target: { name: string; host: string } }): DashboardProposal {
    const now = Date.now();
    const full: DashboardProposal = {
      id: `prop-${++this.seq}`,
      state: 'pending',
      summary: `${p.tool} on ${p.target.name}`,
      affected: [],
      requester: 'claude-desktop/1.5.0',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 120_000).toISOString(),
      requires_web_approval: true,
      approval: p.requires_web_approval === false ? 'single' : 'dashboard',
      question: `Approve ${p.tool} on target ${JSON.stringify(p.target.name)} (${p.target.host})?`,
      ...p,
    };
    this.proposals.set(full.id, full);
    this.record({ tool: full.tool, target: full.target.name, phase: 'proposed', identity: full.requester, args: { proposal: full.id } });
    return full;
  }

  listProposals(): DashboardProposal[] {
    const now = Date.now();
    for (const p of this.proposals.values()) {
      if (p.state === 'pending' && Date.parse(p.expires_at) <= now) p.state = 'expired';
    }
    return [...this.proposals.values()].map((p) => structuredClone(p));
  }

  async confirm(id: string, approver: string): Promise<{ state: string; result?: unknown; error?: { code: string; message: string } }> {
    this.decisions.push({ op: 'confirm', id, approver });
    const p = this.pendingOrThrow(id);
    p.decided_by = approver;
    if (this.failingTools.has(p.tool)) {
      const error = { code: 'task_failed', message: `vSphere task for ${p.tool} failed: InvalidPowerState` };
      p.state = 'failed';
      p.outcome = { ok: false, error };
      this.record({ tool: p.tool, target: p.target.name, phase: 'failed', identity: approver, error });
      return { state: p.state, error };
    }
    const result = { target: p.target.name, done: p.tool, affected: p.affected.map((a) => a.moid ?? a.name) };
    p.state = 'executed';
    p.outcome = { ok: true, result };
    this.record({ tool: p.tool, target: p.target.name, phase: 'executed', identity: approver, args: { proposal: id } });
    return { state: p.state, result };
  }

  async cancel(id: string, approver: string): Promise<{ state: string }> {
    this.decisions.push({ op: 'cancel', id, approver });
    const p = this.pendingOrThrow(id);
    p.state = 'cancelled';
    p.decided_by = approver;
    this.record({ tool: p.tool, target: p.target.name, phase: 'cancelled', identity: approver, args: { proposal: id } });
    return { state: p.state };
  }

  async targets(): Promise<DashboardTarget[]> {
    return structuredClone(this.targetList);
  }

  async inventory(kind: InventoryKind, target: string): Promise<DashboardInventory> {
    const names = target === 'all' ? this.targetNames() : [target];
    return {
      results: names.map((name) => {
        const data = this.inventoryByTarget[name];
        if (data === undefined) return { target: name, error: { code: 'not_found', message: `unknown target ${name}`, retryable: false } };
        if ('error' in data) return { target: name, error: data.error };
        const items = data[kind];
        return { target: name, ok: { items: structuredClone(items), total: items.length } };
      }),
    };
  }

  targetNames(): string[] {
    return this.targetList.map((t) => t.name);
  }

  async auditTail(opts: DashboardAuditQuery): Promise<Array<Record<string, unknown>>> {
    const matches = this.audit.filter(
      (r) =>
        (opts.tool === undefined || r['tool'] === opts.tool) &&
        (opts.target === undefined || r['target'] === opts.target) &&
        (opts.phase === undefined || r['phase'] === opts.phase) &&
        (opts.text === undefined || JSON.stringify(r).includes(opts.text)),
    );
    return matches.slice(-opts.limit);
  }

  private pendingOrThrow(id: string): DashboardProposal {
    const p = this.proposals.get(id);
    if (p === undefined) throw new PortError('not_found', `No proposal ${id}`);
    if (p.state === 'pending' && Date.parse(p.expires_at) <= Date.now()) p.state = 'expired';
    if (p.state === 'expired') throw new PortError('confirmation_expired', `Proposal ${id} expired`);
    if (p.state !== 'pending') throw new PortError('confirmation_invalid', `Proposal ${id} is already ${p.state}`);
    return p;
  }

  private record(rec: Record<string, unknown>): void {
    this.audit.push({ ts: new Date().toISOString(), ...rec });
  }
}

/**
 * The standard scene: two reachable vCenters (one a duplicate name of the other's instance), one
 * unreachable, a gated and an ungated proposal, and a VM whose name is an XSS payload both in the
 * inventory and in a proposal.
 */
export function seededPorts(): FakeDashboardPorts {
  const vm = (name: string, moid: string, power: string): Record<string, unknown> => ({ name, moid, power_state: power, cpu: 2, memory_mb: 4096 });
  const site = (vms: Array<Record<string, unknown>>): Items => ({
    vms,
    hosts: [{ name: 'esx-01.lab.local', moid: 'host-10', connection_state: 'connected' }],
    clusters: [{ name: 'Cluster-A', moid: 'domain-c7', hosts: 1 }],
    datastores: [{ name: 'ds-ssd-01', moid: 'datastore-11', free_gb: 812 }],
  });
  const fake = new FakeDashboardPorts(
    [
      { name: 'prod-vc1', host: 'vcenter-prod1.example.com', connected: true, api_version: '8.0.3.0' },
      { name: 'prod-vc1-alias', host: 'vc1.example.com', connected: true, api_version: '8.0.3.0', shares_instance_with: ['prod-vc1'] },
      { name: 'dr-vc2', host: 'vcenter-dr2.example.com', connected: false, last_error: 'connect ECONNREFUSED 10.0.0.12:443' },
    ],
    {
      'prod-vc1': site([vm('web-1', 'vm-101', 'poweredOn'), vm(XSS_NAME, 'vm-666', 'poweredOff'), vm('db-1', 'vm-102', 'poweredOn')]),
      'prod-vc1-alias': site([vm('web-1', 'vm-101', 'poweredOn')]),
      'dr-vc2': { error: { code: 'unreachable', message: 'connect ECONNREFUSED 10.0.0.12:443', retryable: true } },
    },
  );
  fake.addProposal({
    tool: 'delete_vm',
    target: { name: 'prod-vc1', host: 'vcenter-prod1.example.com' },
    summary: "PERMANENTLY DELETE VM 'web-1' (vm-101) from target 'prod-vc1'",
    affected: [{ type: 'vm', name: 'web-1', moid: 'vm-101', power_state: 'poweredOn' }],
    checkpoint_vpgs: ['VPG-Web'],
    requires_web_approval: true,
  });
  fake.addProposal({
    tool: 'revert_snapshot',
    target: { name: 'prod-vc1', host: 'vcenter-prod1.example.com' },
    summary: `REVERT VM '${XSS_NAME}' (vm-666) to snapshot 'before-patch'`,
    affected: [{ type: 'vm', name: XSS_NAME, moid: 'vm-666' }],
    requires_web_approval: true,
  });
  fake.addProposal({
    tool: 'delete_snapshot',
    target: { name: 'dr-vc2', host: 'vcenter-dr2.example.com' },
    summary: "DELETE snapshot 'old' of VM 'db-1' (vm-102)",
    affected: [{ type: 'snapshot', name: 'old', moid: 'snapshot-9', vm: 'db-1' }],
    requires_web_approval: false,
  });
  return fake;
}
