// Wiring of the gateway for the runtime: start the downstream servers, turn their tools into
// declarations (rebuilt when a server restarts or sends list_changed), add list_downstream, and
// name the downstream server in the audit lines of proxied calls.
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import type { AuditSink } from '../core/audit-writer.js';
import type { AnyTool } from '../tools/define.js';
import type { DynamicTools } from '../server.js';
import { downstreamDeclarations, listDownstreamTool } from '../tools/downstream-tools.js';
import type { Logger } from '../core/logger.js';
import { withDownstreamFields } from './audit-fields.js';
import { DownstreamManager } from './manager.js';

export interface Gateway {
  manager: DownstreamManager;
  /** list_downstream. */
  tools: AnyTool[];
  /** The downstream tools as declarations, current. */
  dynamic: DynamicTools;
  /** Starts the servers; resolves once each one's first attempt has ended (ready or not). Startup does not wait for it. */
  start(): Promise<void>;
  audit(sink: AuditSink): AuditSink;
  close(): Promise<void>;
}

export interface GatewayOptions {
  logger: Logger;
  /** Names of this server's own tools (a downstream tool may not take one). */
  ownTools: string[];
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * The gateway for the configured downstreams; `start()` brings them up in the background, so the
 * MCP server answers initialize at once and announces each downstream's tools (tools/list_changed)
 * as it comes up. Throws DownstreamStartupError, before anything runs, when names could collide.
 */
export function createGateway(configs: DownstreamServerConfig[], opts: GatewayOptions): Gateway {
  const taken = new Set([...opts.ownTools, 'list_downstream']);
  DownstreamManager.check(configs, taken);
  const manager = new DownstreamManager(configs, {
    logger: opts.logger, taken,
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
    ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
  });
  let current = downstreamDeclarations(manager);
  const listeners = new Set<() => void>();
  // Rebuilt before anyone is told, so a listener reading current() sees the new set.
  manager.onChange(() => {
    current = downstreamDeclarations(manager);
    for (const l of listeners) l();
  });
  let started: Promise<void> | undefined;
  return {
    manager,
    start: () => (started ??= manager.start()),
    tools: [listDownstreamTool(manager)],
    dynamic: {
      current: () => current,
      onChange: (l) => void listeners.add(l),
      // A call to a server still starting waits for its first attempt (bounded by its startup
      // timeout); one that never came up has no known tools, and a call to them says why.
      whenStarted: (name) => manager.whenStarted(name),
      whyMissing: (name) => manager.notReady(name)?.unavailable(),
    },
    audit: (sink) => withDownstreamFields(sink, (name) => {
      const t = manager.find(name);
      return t ? { server: t.server, tool: t.tool.name } : undefined;
    }),
    close: () => manager.close(),
  };
}
