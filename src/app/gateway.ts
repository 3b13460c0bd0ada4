// Wiring of the gateway for the runtime: start the downstream servers, turn their tools into
// declarations (rebuilt when a server restarts or sends list_changed), add list_downstream, and
// name the downstream server in the audit lines of proxied calls.
import { unwatchFile, watchFile } from 'node:fs';
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import type { AuditSink } from '../audit/audit-writer.js';
import type { MutatingCatalog } from '../core/catalog.js';
import type { AnyTool } from '../tools/define.js';
import type { DynamicTools } from './build-server.js';
import { downstreamDeclarations, listDownstreamTool } from '../tools/gateway/downstream-tools.js';
import type { Logger } from '../core/logger.js';
import { withDownstreamFields } from '../audit/downstream-fields.js';
import { DownstreamManager } from '../downstream/manager.js';
import { DownstreamPins } from '../downstream/pins.js';
import { SEPARATOR } from '../downstream/naming.js';
import { guestFileGateway, type GuestFileGateway } from '../downstream/forward.js';

export interface Gateway {
  manager: DownstreamManager;
  /** list_downstream. */
  tools: AnyTool[];
  /** The downstream tools as declarations, current. */
  dynamic: DynamicTools;
  /** Starts the servers; resolves once each one's first attempt has ended (ready or not). Startup does not wait for it. */
  start(): Promise<void>;
  /**
   * Resolves when every server's first attempt has ended or `timeoutMs` passed, whichever comes
   * first (never rejects): `initialize` may wait this long so a one-shot client's first
   * tools/list already holds the servers that start quickly.
   */
  firstListing(timeoutMs: number): Promise<void>;
  /** What an undo's put-back of guest files calls: declarations and unguarded forwarding. */
  guestFiles: GuestFileGateway;
  /** The mutating-tool catalog: its entries win over a downstream's readOnlyHint. */
  useCatalog(catalog: MutatingCatalog): void;
  audit(sink: AuditSink): AuditSink;
  close(): Promise<void>;
}

export interface GatewayOptions {
  logger: Logger;
  /** Names of this server's own tools (a downstream tool may not take one). */
  ownTools: string[];
  /** Known secret values (cut out of listings and relayed progress). */
  secrets?: () => readonly string[];
  /** The state file of first-sight definitions; default: in memory (gone with the process). */
  pinsPath?: string;
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** How often a running server looks for an operator's acceptance in the pin file. */
const PIN_FILE_POLL_MS = 1_000;

/**
 * The gateway for the configured downstreams; `start()` brings them up in the background, so the
 * MCP server answers initialize at once and announces each downstream's tools (tools/list_changed)
 * as it comes up. Throws DownstreamStartupError, before anything runs, when names could collide.
 */
export function createGateway(configs: DownstreamServerConfig[], opts: GatewayOptions): Gateway {
  const taken = new Set([...opts.ownTools, 'list_downstream']);
  DownstreamManager.check(configs, taken);
  const pins = new DownstreamPins(opts.pinsPath);
  const manager = new DownstreamManager(configs, {
    logger: opts.logger, taken, pins,
    ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
    ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
  });
  let catalog: MutatingCatalog | undefined;
  const readCatalog = (): void => {
    void catalog?.list().then(
      (entries) => manager.setCatalogued(entries.map((e) => e.tool).filter((t) => t.includes(SEPARATOR))),
      (err: unknown) => opts.logger.warn({ err: String(err) }, 'could not read the mutating-tool catalog for the gateway; keeping the entries last read'),
    );
  };
  const declarationOptions = { ...(opts.secrets ? { secrets: opts.secrets } : {}), onCatalogued: () => readCatalog() };
  let current = downstreamDeclarations(manager, declarationOptions);
  const listeners = new Set<() => void>();
  // Rebuilt before anyone is told, so a listener reading current() sees the new set.
  manager.onChange(() => {
    current = downstreamDeclarations(manager, declarationOptions);
    for (const l of listeners) l();
  });
  // The operator's `downstream accept` rewrites the pin file; a poll (not fs.watch, which misses
  // a rename on some file systems) notices it.
  if (opts.pinsPath) watchFile(opts.pinsPath, { interval: PIN_FILE_POLL_MS, persistent: false }, () => manager.pinsChanged());
  let started: Promise<void> | undefined;
  const start = () => (started ??= manager.start());
  return {
    manager,
    start,
    firstListing: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref?.();
      });
      return Promise.race([start(), waited]).finally(() => clearTimeout(timer));
    },
    useCatalog: (c) => {
      catalog = c;
      c.onChange(readCatalog);
      readCatalog();
    },
    tools: [listDownstreamTool(manager)],
    guestFiles: guestFileGateway(manager, opts.secrets ?? (() => [])),
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
    close: async () => {
      if (opts.pinsPath) unwatchFile(opts.pinsPath);
      await manager.close();
    },
  };
}
