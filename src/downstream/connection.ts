// One downstream MCP server: a child process (stdio) or an HTTP endpoint, spoken to with the SDK's
// own Client. It is its own failure domain: a start that fails or times out, or a crash later,
// leaves it `restarting` with the reason, retried with exponential backoff, while the rest of this
// server carries on; its tools answer `unreachable` naming it meanwhile. Its tool list is followed
// through notifications/tools/list_changed.
import { Client, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import { AppError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { VERSION } from '../core/version.js';
import type { DownstreamResult, DownstreamTool } from './downstream-tool.js';
import { listToolsBounded, ListingRefused } from './bounded-listing.js';
import { ownText } from '../core/own-text.js';

export type DownstreamState = 'starting' | 'ready' | 'restarting' | 'stopped';

export interface DownstreamStatus {
  name: string;
  state: DownstreamState;
  transport: 'stdio' | 'http';
  tool_count: number;
  last_error: string | null;
  restarts: number;
  vm: string | null;
  /** Names only: values may be secrets. */
  env_keys: string[];
  /** Why its last tools/list (after list_changed) was refused; its previous tools are kept. */
  listing_error: string | null;
}

export interface ConnectionOptions {
  logger: Logger;
  /** First restart delay (doubles per failed attempt, capped at maxBackoffMs). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface ForwardOptions {
  signal: AbortSignal;
  onprogress: (p: { progress: number; total?: number; message?: string }) => void;
}

const STDERR_TAIL = 2_000;

export class DownstreamConnection {
  private client: Client | undefined;
  /** The client of an attempt still starting: close() stops its child too, or it would outlive us. */
  private starting: Client | undefined;
  private state: DownstreamState = 'starting';
  private tools: DownstreamTool[] = [];
  private lastError: string | null = null;
  private restarts = 0;
  private failedAttempts = 0;
  private timer: NodeJS.Timeout | undefined;
  private stderrTail = '';
  private readonly listeners = new Set<() => void>();
  private first: Promise<void> | undefined;
  private listingError: string | null = null;
  /** A refresh is running; `refreshAgain` is set when list_changed came meanwhile (storms coalesce). */
  private refreshing = false;
  private refreshAgain = false;

  constructor(readonly config: DownstreamServerConfig, private readonly opts: ConnectionOptions) {}

  /** Starts the first attempt; the promise resolves once it has ended, ready or not. */
  start(): Promise<void> {
    this.first ??= this.attempt();
    return this.first;
  }

  /** Resolves once the first attempt has ended (at once when it has), so a call can wait for a server that is still starting. */
  started(): Promise<void> {
    return this.first ?? Promise.resolve();
  }

  /** The downstream's tools as last listed (kept while it restarts, so calls can say it is unreachable). */
  listTools(): DownstreamTool[] {
    return this.tools;
  }

  onToolsChanged(listener: () => void): void {
    this.listeners.add(listener);
  }

  status(): DownstreamStatus {
    return {
      name: this.config.name, state: this.state, transport: this.config.url ? 'http' : 'stdio', tool_count: this.tools.length,
      last_error: this.lastError, restarts: this.restarts, vm: this.config.vm ?? null, env_keys: Object.keys(this.config.env),
      listing_error: this.listingError,
    };
  }

  async call(tool: string, args: Record<string, unknown>, opts: ForwardOptions): Promise<DownstreamResult> {
    const client = this.client;
    if (this.state !== 'ready' || !client) throw this.unavailable();
    try {
      return (await client.callTool({ name: tool, arguments: args }, {
        // Progress restarts the call's timeout, never its total bound.
        signal: opts.signal, timeout: this.config.callTimeoutMs, resetTimeoutOnProgress: true, maxTotalTimeout: this.config.callTotalTimeoutMs,
        onprogress: opts.onprogress,
      })) as DownstreamResult;
    } catch (err) {
      throw this.callError(err, opts.signal);
    }
  }

  async close(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    const s = this.starting;
    this.starting = undefined;
    await Promise.all([c, s].map((x) => x?.close().catch(() => undefined)));
  }

  private async attempt(): Promise<void> {
    if (this.state === 'stopped') return;
    // A stdio child is spoken to with the 2025 handshake, no probe: the SDK's auto mode would spawn
    // a second, throw-away child for its server/discover probe (a downstream's start is not free,
    // and not always side-effect free), and stdio servers in the field open with initialize. An
    // HTTP server is probed: one round trip, and a 2026-era endpoint may serve nothing else.
    const client = new Client({ name: 'zerto-rewind-mcp', version: VERSION }, {
      capabilities: {}, versionNegotiation: { mode: this.config.url ? 'auto' : 'legacy' },
    });
    const transport = this.transport();
    this.starting = client;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`did not answer initialize and tools/list within ${this.config.startupTimeoutMs / 1000}s`)), this.config.startupTimeoutMs);
      });
      await Promise.race([client.connect(transport), timeout]);
      const tools = await Promise.race([listToolsBounded(client, this.listingBounds()), timeout]);
      // close() may have run while this attempt was waiting.
      if ((this.state as DownstreamState) === 'stopped') {
        await client.close().catch(() => undefined);
        return;
      }
      client.setNotificationHandler('notifications/tools/list_changed', () => void this.refresh(client));
      client.onclose = () => this.lost(client);
      this.client = client;
      this.tools = this.allowed(tools);
      this.state = 'ready';
      this.failedAttempts = 0;
      this.listingError = null;
      this.opts.logger.info({ downstream: this.config.name, tools: this.tools.length }, 'downstream server ready');
      this.emit();
    } catch (err) {
      await client.close().catch(() => undefined);
      this.down(`failed to start: ${(err as Error).message}${this.stderrSuffix()}`);
    } finally {
      clearTimeout(timer);
      if (this.starting === client) this.starting = undefined;
    }
  }

  private transport(): Transport {
    if (this.config.url) return new StreamableHTTPClientTransport(new URL(this.config.url));
    this.stderrTail = '';
    const t = new StdioClientTransport({
      command: this.config.command!, args: this.config.args,
      // The SDK passes only a few safe variables (PATH, HOME...) by default; the configured env is added to those.
      env: { ...getDefaultEnvironment(), ...this.config.env },
      ...(this.config.cwd ? { cwd: this.config.cwd } : {}),
      stderr: 'pipe',
    });
    t.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
      // The logger redacts known secrets; a downstream's chatter is debug-level noise for us.
      this.opts.logger.debug({ downstream: this.config.name, stderr: text.trimEnd() }, 'downstream stderr');
    });
    return t;
  }

  /** The transport closed while this client was the live one: a crash or an exit. */
  private lost(client: Client): void {
    if (this.client !== client || this.state === 'stopped') return;
    this.client = undefined;
    this.down(`the server exited or closed its connection${this.stderrSuffix()}`);
  }

  private down(reason: string): void {
    if (this.state === 'stopped') return;
    this.state = 'restarting';
    this.lastError = reason;
    this.failedAttempts += 1;
    const base = this.opts.backoffMs ?? 500;
    const delay = Math.min(base * 2 ** (this.failedAttempts - 1), this.opts.maxBackoffMs ?? 30_000);
    this.opts.logger.warn({ downstream: this.config.name, reason, retry_in_ms: delay }, 'downstream server down; restarting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.restarts += 1;
      void this.attempt();
    }, delay);
    this.timer.unref?.();
  }

  private async refresh(client: Client): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        await this.refreshOnce(client);
      } while (this.refreshAgain && this.client === client);
    } finally {
      this.refreshing = false;
    }
  }

  private async refreshOnce(client: Client): Promise<void> {
    try {
      const tools = await listToolsBounded(client, this.listingBounds());
      if (this.client !== client) return;
      this.tools = this.allowed(tools);
      this.listingError = null;
      this.emit();
    } catch (err) {
      if (this.client !== client) return;
      // Its previous tools stay; list_downstream says why the new listing was not taken.
      this.listingError = err instanceof ListingRefused ? err.message : `tools/list failed: ${(err as Error).message}`;
      this.opts.logger.warn({ downstream: this.config.name, reason: this.listingError }, 'could not list tools after list_changed; keeping the previous ones');
      this.emit();
    }
  }

  private listingBounds() {
    return { maxTools: this.config.maxTools, timeoutMs: this.config.startupTimeoutMs };
  }

  private allowed(tools: DownstreamTool[]): DownstreamTool[] {
    const allow = this.config.tools;
    if (!allow) return tools;
    const missing = allow.filter((n) => !tools.some((t) => t.name === n));
    if (missing.length) this.opts.logger.warn({ downstream: this.config.name, missing }, 'allowlisted tools the downstream server does not offer');
    return tools.filter((t) => allow.includes(t.name));
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }

  private stderrSuffix(): string {
    const tail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    return tail ? `; stderr: ${tail.slice(-400)}` : '';
  }

  /** The error a call to this server's tools gets while it is down. */
  unavailable(): AppError {
    return this.unreachable(`it is ${this.state}${this.lastError ? ` (${this.lastError})` : ''}`);
  }

  private unreachable(why: string): AppError {
    return new AppError('unreachable', `Downstream server '${this.config.name}' is unreachable: ${why}.`, {
      hint: ownText(`It is restarted automatically with backoff; list_downstream shows its state. Retry when '${this.config.name}' is ready.`),
      details: { downstream: this.config.name },
    });
  }

  private callError(err: unknown, signal: AbortSignal): AppError {
    if (signal.aborted) return new AppError('cancelled', ownText(`The call to downstream server '${this.config.name}' was cancelled.`));
    if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed) {
      return this.unreachable('it closed the connection during the call (crashed or exited), so whether the call took effect is unknown');
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
      return new AppError('timeout', ownText(`Downstream server '${this.config.name}' did not answer within ${this.config.callTimeoutMs / 1000}s.`), {
        hint: ownText('Whether the call took effect is unknown; check before retrying. call_timeout_seconds in config.json sets the bound.'),
        details: { downstream: this.config.name },
      });
    }
    if (err instanceof ProtocolError) {
      return new AppError(err.code === ProtocolErrorCode.InvalidParams ? 'invalid_input' : 'task_failed', `Downstream server '${this.config.name}' refused the call: ${err.message}`, {
        details: { downstream: this.config.name, mcp_code: err.code },
      });
    }
    if (this.state !== 'ready') return this.unreachable((err as Error).message);
    return new AppError('task_failed', `The call to downstream server '${this.config.name}' failed: ${(err as Error).message}`, { details: { downstream: this.config.name } });
  }
}
