// The one way a call reaches a downstream tool: the pinned definition the gateway exports, the
// connection's own bounds (call and total timeouts), the caller's signal, and progress relayed with
// known secrets cut out. A forwarded change uses it after the pipeline's steps; the put-back of
// guest files (src/undo/) uses it directly, under the undo's own pipeline call, so it pins no
// checkpoint and writes no proposal of its own, and its results come back with secrets cut out.
import { AppError } from '../core/errors.js';
import { redactString, redactValues } from '../core/redact.js';
import type { DownstreamResult } from './downstream-tool.js';
import type { DownstreamManager, ExportedTool } from './manager.js';
import { exportedName } from './naming.js';
import type { GuestFileSpec } from '../config/downstream-undo.js';
import { ownText } from '../core/own-text.js';

/** What the put-back of guest files reaches of the gateway: each server's declarations, and unguarded forwarding. */
export interface GuestFileGateway {
  /** The server's guest-path handling (config undo_paths, undo_tools, guest_root), if any. */
  guestFiles(server: string): GuestFileSpec | undefined;
  /** forwardUnguarded to `<server>__<tool>`, with the gateway's known secrets. */
  forward(server: string, tool: string, args: Record<string, unknown>, opts: { signal: AbortSignal }): Promise<DownstreamResult>;
}

export function guestFileGateway(manager: DownstreamManager, secrets: () => readonly string[]): GuestFileGateway {
  return {
    guestFiles: (server) => manager.configOf(server)?.guestFiles,
    forward: (server, tool, args, opts) => forwardUnguarded(manager, server, tool, args, { ...opts, secrets }),
  };
}

export interface ForwardCallOptions {
  signal: AbortSignal;
  /** Known secret values: cut out of relayed progress (and, for forwardUnguarded, of the result). */
  secrets: () => readonly string[];
  progress?: (progress: number, total?: number, message?: string) => void;
}

/** Forwards one call to the exported tool as it is pinned; the downstream's result as it came. */
export function forwardToDownstream(x: ExportedTool, args: Record<string, unknown>, opts: ForwardCallOptions): Promise<DownstreamResult> {
  return x.connection.call(x.tool.name, args, {
    signal: opts.signal,
    // The downstream's words, relayed: its secrets are cut out as from its results.
    onprogress: (p) => opts.progress?.(p.progress, p.total, p.message === undefined ? undefined : redactString(p.message, opts.secrets())),
  });
}

/**
 * A call the server makes itself, inside a change already decided and checkpointed (an undo's
 * put-back): only a tool the gateway exports (allowlisted, pinned) is reached, and the result is
 * returned with known secrets cut out. No policy, guard or proposal of its own.
 */
export async function forwardUnguarded(
  manager: DownstreamManager, server: string, tool: string, args: Record<string, unknown>, opts: ForwardCallOptions,
): Promise<DownstreamResult> {
  const x = manager.find(exportedName(server, tool));
  if (!x) {
    const down = manager.notReady(exportedName(server, tool));
    throw down ? down.unavailable() : new AppError('not_found', `Downstream server '${server}' exposes no tool '${tool}' (not listed, not in its tools allowlist, or held back as changed since first seen).`, {
      hint: ownText('list_downstream shows its tools; the put-back only calls a tool the gateway exports.'),
    });
  }
  return redactValues(await forwardToDownstream(x, args, opts), opts.secrets());
}
