// What `initialize` (2025-11-25) and `server/discover` (2026-07-28) answer: the server's name,
// version, capabilities and instructions. A module of its own, apart from the tool handlers,
// because stdio opens its MCP connection before the tools load (main.ts): this file and the SDK's
// Server class are all that takes.
import { Server } from '@modelcontextprotocol/server';
import type { LoadedConfig } from '../config/load.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { VERSION } from '../core/version.js';

/** The revisions served: 2026-07-28 through server/discover, the 2025 ones through initialize (newest first). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/**
 * How long a 2026-era client may keep tools/list (SEP-2549). The built-in list is fixed for the
 * life of the process and the same for every caller (scopes are checked per call, not by hiding
 * tools), so it is public; the gateway's list changes whenever a downstream server comes or goes,
 * so a client asks again every time.
 */
export function toolListCacheHint(listChanged: boolean): { ttlMs: number; cacheScope: 'public' | 'private' } {
  return listChanged ? { ttlMs: 0, cacheScope: 'public' } : { ttlMs: 5 * 60_000, cacheScope: 'public' };
}

/**
 * Whether the tool list changes while the process runs: only the gateway's downstream servers
 * bring tools later (announced with tools/list_changed). The runtime starts the gateway on this
 * same condition, so what the handshake advertised and what runs cannot disagree.
 */
export function toolListChanges(config: Pick<LoadedConfig, 'app'>): boolean {
  return config.app.downstream.length > 0;
}

/** A new MCP server that answers the handshake of either era; buildServer attaches the tool handlers. */
export function newMcpServer(listChanged: boolean): Server {
  return new Server(
    { name: 'zerto-rewind-mcp', title: 'Zerto Rewind (vSphere + Zerto guard)', version: VERSION },
    {
      capabilities: { tools: listChanged ? { listChanged: true } : {} },
      instructions: SERVER_INSTRUCTIONS,
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      cacheHints: { 'tools/list': toolListCacheHint(listChanged) },
    },
  );
}
