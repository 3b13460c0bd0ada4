// The low-level vim25 client for one target: the transport, the session on top of it, and the
// service content. Every facade calls `invoke` (session-aware, re-login + one replay); nothing
// outside src/vsphere talks to the wire.

import type { SecretSource } from '../core/secrets.js';
import { VimSession } from './session.js';
import { HttpSoapTransport, type CallOptions, type WireStats } from './soap/transport.js';
import type { Logger } from '../core/logger.js';
import type { TargetConfig } from './target-config.js';
import type { AboutInfo, MoRef, ServiceContent } from './types.js';

export interface VimClientOptions {
  secrets: SecretSource;
  logger?: Logger;
  /** Default per-call deadline (ms); default 60 s. */
  timeoutMs?: number;
  /** Keepalive period (ms); 0 disables; default 5 minutes. */
  keepaliveMs?: number;
}

export class VimClient {
  readonly transport: HttpSoapTransport;
  readonly session: VimSession;

  constructor(
    readonly target: TargetConfig,
    opts: VimClientOptions,
  ) {
    this.transport = new HttpSoapTransport({
      target: target.name,
      host: target.host,
      port: target.port,
      protocol: target.protocol,
      insecure: target.insecure,
      caFile: target.caFile,
      credentialPrefix: target.credentialPrefix,
      timeoutMs: opts.timeoutMs,
      logger: opts.logger,
    });
    this.session = new VimSession(this.transport, {
      secrets: opts.secrets,
      credentialPrefix: target.credentialPrefix,
      keepaliveMs: opts.keepaliveMs,
      logger: opts.logger,
    });
  }

  /** Round trips made by this client (tests assert constant counts per listing). */
  get stats(): WireStats {
    return this.transport.stats;
  }

  /** Logs in if needed and returns the service content. */
  async connect(opts: CallOptions = {}): Promise<ServiceContent> {
    await this.session.ensureLoggedIn(opts);
    return this.content;
  }

  get content(): ServiceContent {
    const sc = this.session.serviceContent;
    if (!sc) throw new Error('VimClient used before connect()');
    return sc;
  }

  get about(): AboutInfo | undefined {
    return this.session.serviceContent?.about;
  }

  invoke(method: string, thisRef: MoRef, params: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<unknown> {
    return this.session.invoke(method, thisRef, params, opts);
  }

  async close(): Promise<void> {
    await this.session.logout();
    await this.transport.close();
  }
}
