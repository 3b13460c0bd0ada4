// Wiring of the gateway for the runtime: start the downstream servers, turn their tools into
// declarations (rebuilt when a server restarts or sends list_changed), add list_downstream, and
// name the downstream server in the audit lines of proxied calls.
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import type { PolicySource } from '../config/policy-store.js';
import type { AuditSink } from '../core/audit-writer.js';
import type { AppError } from '../core/errors.js';
import type { AnyTool } from '../tools/define.js';
import { downstreamDeclarations, listDownstreamTool } from '../tools/downstream-tools.js';
import type { Logger } from '../core/logger.js';
import { withDownstreamFields } from './audit-fields.js';
import { DownstreamManager } from './manager.js';

export interface Gateway {
  manager: DownstreamManager;
  /** list_downstream. */
  tools: AnyTool[];
  /** The downstream tools as declarations, current. */
  dynamic: { current(): AnyTool[]; onChange(listener: () => void): void; whyMissing(name: string): AppError | undefined };
  audit(sink: AuditSink): AuditSink;
  close(): Promise<void>;
}

export interface GatewayOptions {
  logger: Logger;
  policy: PolicySource;
  /** Names of this server's own tools (a downstream tool may not take one). */
  ownTools: string[];
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** Starts every configured downstream; throws DownstreamStartupError when their names cannot all be exposed. */
export async function startGateway(configs: DownstreamServerConfig[], opts: GatewayOptions): Promise<Gateway> {
  const manager = new DownstreamManager(configs, {
    logger: opts.logger, taken: new Set([...opts.ownTools, 'list_downstream']),
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
    ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
  });
  await manager.start();
  let current = downstreamDeclarations(manager, opts.policy);
  const listeners = new Set<() => void>();
  // Rebuilt before anyone is told, so a listener reading current() sees the new set.
  manager.onChange(() => {
    current = downstreamDeclarations(manager, opts.policy);
    for (const l of listeners) l();
  });
  return {
    manager,
    tools: [listDownstreamTool(manager)],
    dynamic: {
      current: () => current,
      onChange: (l) => void listeners.add(l),
      // A server that never came up has no known tools; a call to one of them says why.
      whyMissing: (name) => manager.notReady(name)?.unavailable(),
    },
    audit: (sink) => withDownstreamFields(sink, (name) => {
      const t = manager.find(name);
      return t ? { server: t.server, tool: t.tool.name } : undefined;
    }),
    close: () => manager.close(),
  };
}
