// The dashboard's ports, implemented over the same confirmation store, pipeline, target pool and
// audit log the MCP tools use. The dashboard itself imports none of these; it gets this object.
import { AppError, toPublicError } from '../../core/errors.js';
import { fileLinesBackward } from '../../audit/tail.js';
import type { DashboardAuditQuery, DashboardPorts, DashboardProposal, InventoryKind } from '../../dashboard/ports.js';
import type { BuiltServer } from '../build-server.js';
import { approvalQuestion } from '../../core/approval-question.js';
import { confirmProposal } from '../../pipeline/index.js';
import { auditCancelled } from '../../pipeline/call.js';
import type { TargetPool } from '../../vsphere/target-pool.js';
import { ownText } from '../../core/own-text.js';

const INVENTORY_ROWS = 200;
/** How far back from the end of the audit log the dashboard's view searches. */
export const AUDIT_SCAN_BYTES = 32 * 1024 * 1024;

/** Where the Audit tab reads: the JSONL file, or central mode's shared table. */
export type AuditSource = { file: string } | { table: (q: DashboardAuditQuery) => Promise<Array<Record<string, unknown>>> };

export function dashboardPorts(built: BuiltServer, pool: TargetPool | undefined, auditFrom: AuditSource | string): DashboardPorts {
  const { services } = built;
  const audit = typeof auditFrom === 'string' ? { file: auditFrom } : auditFrom;
  return {
    async listProposals(): Promise<DashboardProposal[]> {
      return (await services.confirmations.list()).map((p) => ({
        id: p.id, tool: p.tool, state: p.state, target: p.target, summary: p.summary, affected: p.affected,
        checkpoint_vpgs: p.checkpointVpgs, requester: p.requester,
        created_at: new Date(p.createdAt).toISOString(), expires_at: new Date(p.expiresAt).toISOString(),
        requires_web_approval: p.requiresWebApproval, approval: p.approval ?? 'single', question: approvalQuestion(p),
        ...(p.outcome ? { outcome: p.outcome } : {}),
        ...(p.decidedBy ? { decided_by: p.decidedBy } : {}),
      }));
    },

    async confirm(id, approver, principal) {
      const ctx = built.callContext(approver, undefined, principal);
      const who = { identity: approver, channel: 'web' as const };
      const p = await services.confirmations.takeById(id, who);
      try {
        const out = await confirmProposal(p, { ...ctx, auditId: p.auditId }, who);
        return { state: out.state, result: out.result };
      } catch (err) {
        const e = toPublicError(err);
        return { state: 'failed', error: { code: e.code, message: e.message } };
      }
    },

    async cancel(id, approver, principal) {
      const p = await services.confirmations.cancelById(id, approver);
      await auditCancelled(built.callContext(approver, undefined, principal), p);
      return { state: 'cancelled' };
    },

    async targets() {
      if (!pool) return [];
      const status = await pool.status({ connect: true, timeoutMs: 10_000 });
      return status.map((s) => ({
        name: s.name, host: s.host, connected: s.connected,
        ...(s.api_version ? { api_version: s.api_version } : {}),
        ...(s.last_error ? { last_error: s.last_error.message } : {}),
        shares_instance_with: s.shares_instance_with,
      }));
    },

    async inventory(kind: InventoryKind, target) {
      if (!pool) throw new AppError('invalid_input', ownText('No vSphere targets are configured.'));
      const names = target === 'all' ? pool.names() : [target];
      if (!names.every((n) => pool.names().includes(n))) throw new AppError('not_found', `Unknown target '${target}'.`);
      const results = await pool.fanOut(names, async (client, _t, call) => {
        const rows = (kind === 'vms' ? await client.listVms(call)
          : kind === 'hosts' ? await client.listHosts(call)
            : kind === 'clusters' ? await client.listClusters(call)
              : await client.listDatastores(call)) as unknown as Array<Record<string, unknown>>;
        return { items: rows.slice(0, INVENTORY_ROWS).map(compactRow), total: rows.length };
      }, { timeoutMs: 20_000 });
      return { results: results.map((r) => ('ok' in r ? { target: r.target, ok: r.ok } : { target: r.target, error: { code: r.error.code, message: r.error.message, retryable: r.error.retryable } })) };
    },

    targetNames: () => pool?.names() ?? [],

    async auditTail(q) {
      if ('table' in audit) return audit.table(q);
      // From the end of the file, one chunk at a time: memory stays bounded however long the log
      // grows, and a search gives up after AUDIT_SCAN_BYTES rather than reading gigabytes.
      const needle = q.text?.toLowerCase();
      const out: Array<Record<string, unknown>> = [];
      for await (const line of fileLinesBackward(audit.file, AUDIT_SCAN_BYTES)) {
        if (needle && !line.toLowerCase().includes(needle)) continue;
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue;
        }
        if (q.tool && rec.tool !== q.tool) continue;
        if (q.target && rec.target !== q.target) continue;
        if (q.phase && rec.phase !== q.phase) continue;
        out.push(rec);
        if (out.length >= q.limit) break;
      }
      return out.reverse();
    },
  };
}

/** Nested objects (host/pool refs) flattened to their names, so the page shows simple columns. */
function compactRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && 'name' in v) out[k] = (v as { name: unknown }).name;
    else if (Array.isArray(v)) out[k] = v.map((x) => (x && typeof x === 'object' && 'name' in x ? (x as { name: unknown }).name : x)).join(', ');
    else out[k] = v;
  }
  return out;
}
