// What `initialize` answers: the server's name, version, capabilities and instructions. A module of
// its own, apart from server.ts, because stdio opens its MCP session before the tools load
// (main.ts): this file and the SDK's Server class are all that takes.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoadedConfig } from './config/load.js';
import { SERVER_INSTRUCTIONS } from './instructions.js';
import { VERSION } from './version.js';

/**
 * Whether the tool list changes while the process runs: only the gateway's downstream servers
 * bring tools later (announced with tools/list_changed). The runtime starts the gateway on this
 * same condition, so what `initialize` advertised and what runs cannot disagree.
 */
export function toolListChanges(config: Pick<LoadedConfig, 'app'>): boolean {
  return config.app.downstream.length > 0;
}

/** A new MCP server that answers `initialize`; buildServer attaches the tool handlers. */
export function newMcpServer(listChanged: boolean): Server {
  return new Server(
    { name: 'zerto-rewind-mcp', title: 'Zerto Rewind (vSphere + Zerto guard)', version: VERSION },
    { capabilities: { tools: listChanged ? { listChanged: true } : {} }, instructions: SERVER_INSTRUCTIONS },
  );
}

