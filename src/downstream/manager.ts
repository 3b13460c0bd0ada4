// Every downstream server of this process: started together at startup without anyone waiting for
// them (each bounded by its own timeout), their tools re-exported as `<server>__<tool>` as each
// comes up, kept current as they restart or send list_changed. Collisions were ruled out from the
// configuration (naming.ts, configNamingProblems) before any server started; a tool name only a
// running server reveals as unusable is left out, logged and shown by list_downstream. Each tool
// is exported with its pinned definition (pins.ts), and as a read only when its pin, its listing
// and the mutating-tool catalog all say it is one.
import type { DownstreamTool } from './downstream-tool.js';
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import type { Logger } from '../core/logger.js';
import { DownstreamConnection, type DownstreamStatus } from './connection.js';
import { configNamingProblems, exportedName, namingProblems, SEPARATOR, type NamingProblem } from './naming.js';
import { DownstreamPins, type ChangedTool } from './pins.js';

export interface ExportedTool {
  /** `<server>__<tool>`, the name clients call. */
  name: string;
  server: string;
  /** The pinned definition (what is advertised and enforced). */
  tool: DownstreamTool;
  /** Whether it runs as a read: pin, listing and catalog agree that it is one. */
  readOnly: boolean;
  connection: DownstreamConnection;
}

export interface ManagerOptions {
  logger: Logger;
  /** Names of this server's own tools: a downstream tool may not take one. */
  taken: ReadonlySet<string>;
  /** First-sight definitions; default: in memory. */
  pins?: DownstreamPins;
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
  /** Tools listed differently from their pinned definition: held back until the operator accepts. */
  changed_tools: ChangedTool[];
}

export class DownstreamManager {
  private readonly connections: DownstreamConnection[];
  private current: ExportedTool[] = [];
  private refused: NamingProblem[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly pins: DownstreamPins;
  /** Exported names the mutating-tool catalog lists, as last read (the catalog is async, declarations are not). */
  private catalogued = new Set<string>();

  constructor(configs: DownstreamServerConfig[], private readonly opts: ManagerOptions) {
    this.pins = opts.pins ?? new DownstreamPins(undefined);
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

  /** A configured server's configuration, by its name. */
  configOf(server: string): DownstreamServerConfig | undefined {
    return this.connections.find((c) => c.config.name === server)?.config;
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
      changed_tools: this.pins.changed(c.config.name),
    }));
  }

  /** Called after the exported set changed (a server came up, restarted, or sent list_changed). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  /** The catalog's downstream entries changed (or were read afresh): re-declare what they touch. */
  setCatalogued(names: Iterable<string>): void {
    const next = new Set(names);
    if (next.size === this.catalogued.size && [...next].every((n) => this.catalogued.has(n))) return;
    this.catalogued = next;
    this.recompute();
  }

  /** The pin file changed on disk (an operator accepted a change): apply it. */
  pinsChanged(): void {
    if (this.pins.reload()) this.recompute(true);
  }

  private pairs() {
    return this.connections.flatMap((c) => c.listTools().map((t) => ({ server: c.config.name, tool: t.name })));
  }

  private recompute(force = false): void {
    const problems = namingProblems(this.pairs(), this.opts.taken);
    const refusedKey = new Set(problems.map((p) => `${p.server}\u0000${p.tool}`));
    for (const p of problems) {
      if (!this.refused.some((r) => r.server === p.server && r.tool === p.tool)) this.opts.logger.error({ downstream: p.server, tool: p.tool }, `downstream tool left out: ${p.reason}`);
    }
    this.refused = problems;
    const next: ExportedTool[] = this.connections.flatMap((c) => {
      const usable = c.listTools().filter((t) => !refusedKey.has(`${c.config.name}\u0000${t.name}`));
      return this.pins.reconcile(c.config.name, usable).map(({ tool, readOnly }) => {
        const name = exportedName(c.config.name, tool.name);
        return { name, server: c.config.name, tool, readOnly: readOnly && !this.catalogued.has(name), connection: c };
      });
    });
    // A restart re-lists the same tools: only a real difference is announced to the client.
    const changed = force || next.length !== this.current.length ||
      next.some((t, i) => t.name !== this.current[i]!.name || t.readOnly !== this.current[i]!.readOnly || JSON.stringify(t.tool) !== JSON.stringify(this.current[i]!.tool));
    this.current = next;
    if (changed) for (const l of this.listeners) l();
  }
}
