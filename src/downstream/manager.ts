// Every downstream server of this process: started together at startup without anyone waiting for
// them (each bounded by its own timeout), their tools re-exported as `<server>__<tool>` as each
// comes up, kept current as they restart or send list_changed. Collisions were ruled out from the
// configuration (naming.ts, configNamingProblems) before any server started; a tool name only a
// running server reveals as unusable is left out, logged and shown by list_downstream.
import type { DownstreamTool } from './downstream-tool.js';
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import type { Logger } from '../core/logger.js';
import { DownstreamConnection, type DownstreamStatus } from './connection.js';
import { configNamingProblems, exportedName, namingProblems, SEPARATOR, type NamingProblem } from './naming.js';

export interface ExportedTool {
  /** `<server>__<tool>`, the name clients call. */
  name: string;
  server: string;
  tool: DownstreamTool;
  connection: DownstreamConnection;
}

export interface ManagerOptions {
  logger: Logger;
  /** Names of this server's own tools: a downstream tool may not take one. */
  taken: ReadonlySet<string>;
  backoffMs?: number;
  maxBackoffMs?: number;
}

export class DownstreamStartupError extends Error {
  constructor(readonly problems: NamingProblem[]) {
    super(`downstream servers or tool names refused, so the server does not start:\n${problems.map((p) => `  ${p.server} / ${p.tool}: ${p.reason}`).join('\n')}`);
    this.name = 'DownstreamStartupError';
  }
}

export interface DownstreamListing extends DownstreamStatus {
  /** Downstream tools left out because their exported name was invalid or taken. */
  refused_tools: string[];
}

export class DownstreamManager {
  private readonly connections: DownstreamConnection[];
  private current: ExportedTool[] = [];
  private refused: NamingProblem[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(configs: DownstreamServerConfig[], private readonly opts: ManagerOptions) {
    this.connections = configs.map((c) => new DownstreamConnection(c, {
      logger: opts.logger,
      ...(opts.backoffMs !== undefined ? { backoffMs: opts.backoffMs } : {}),
      ...(opts.maxBackoffMs !== undefined ? { maxBackoffMs: opts.maxBackoffMs } : {}),
    }));
    for (const c of this.connections) c.onToolsChanged(() => this.recompute());
  }

  /**
   * Refuses, before anything runs, a configuration whose exported names could collide (with this
   * server's own tools or between servers) or whose allowlisted names are invalid.
   */
  static check(configs: readonly DownstreamServerConfig[], taken: ReadonlySet<string>): void {
    const problems = configNamingProblems(configs, taken);
    if (problems.length) throw new DownstreamStartupError(problems);
  }

  /** Starts every server; resolves once each one's first attempt has ended (ready or not). Nothing needs to wait for it. */
  async start(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.start()));
  }

  /** Resolves when the server behind `<server>__...` has ended its first attempt (at once for any other name). */
  whenStarted(name: string): Promise<void> {
    return this.connectionFor(name)?.started() ?? Promise.resolve();
  }

  tools(): ExportedTool[] {
    return this.current;
  }

  find(name: string): ExportedTool | undefined {
    return this.current.find((t) => t.name === name);
  }

  /** The connection behind `<server>__...` when that server is configured but not ready (its tools are not known yet). */
  notReady(name: string): DownstreamConnection | undefined {
    const c = this.connectionFor(name);
    return c && c.status().state !== 'ready' ? c : undefined;
  }

  /** The configured server whose `<server>__` namespace the name is in, up or not. */
  serverOf(name: string): string | undefined {
    return this.connectionFor(name)?.config.name;
  }

  private connectionFor(name: string): DownstreamConnection | undefined {
    return this.connections.find((x) => name.startsWith(`${x.config.name}${SEPARATOR}`));
  }

  status(): DownstreamListing[] {
    return this.connections.map((c) => ({
      ...c.status(),
      refused_tools: this.refused.filter((p) => p.server === c.config.name).map((p) => p.tool),
    }));
  }

  /** Called after the exported set changed (a server came up, restarted, or sent list_changed). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private pairs() {
    return this.connections.flatMap((c) => c.listTools().map((t) => ({ server: c.config.name, tool: t.name })));
  }

  private recompute(): void {
    const problems = namingProblems(this.pairs(), this.opts.taken);
    const refusedKey = new Set(problems.map((p) => `${p.server}\u0000${p.tool}`));
    for (const p of problems) {
      if (!this.refused.some((r) => r.server === p.server && r.tool === p.tool)) this.opts.logger.error({ downstream: p.server, tool: p.tool }, `downstream tool left out: ${p.reason}`);
    }
    this.refused = problems;
    const next: ExportedTool[] = this.connections.flatMap((c) => c.listTools()
      .filter((t) => !refusedKey.has(`${c.config.name}\u0000${t.name}`))
      .map((t) => ({ name: exportedName(c.config.name, t.name), server: c.config.name, tool: t, connection: c })));
    // A restart re-lists the same tools: only a real difference is announced to the client.
    const changed = next.length !== this.current.length || next.some((t, i) => t.name !== this.current[i]!.name || JSON.stringify(t.tool) !== JSON.stringify(this.current[i]!.tool));
    this.current = next;
    if (changed) for (const l of this.listeners) l();
  }
}
