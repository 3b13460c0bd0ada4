// The wire: one undici Pool per target, the SOAP envelope, `SOAPAction: urn:vim25/<version>`, the
// `vmware_soap_session` cookie, the `operationID` header (our audit record id, so vCenter's logs
// and our audit join up), TLS per target, and a deadline plus the caller's AbortSignal on every
// call. HTTP 200 and 500 carry envelopes; anything else is a transport error. This layer knows
// nothing of sessions: re-login and keepalive sit above it (session.ts), as in govmomi.

import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { AppError } from '../../core/errors.js';
import type { MoRef } from '../types.js';
import { faultToAppError, transportToAppError, type FaultContext } from './faults.js';
import { encodeElement, escapeXml, parseEnvelope } from './xml.js';

import { silentLogger, type Logger } from '../../core/logger.js';

export { silentLogger, type Logger };

export interface CallOptions {
  signal?: AbortSignal;
  /** Sent as the SOAP `operationID` header; use the audit record id. */
  operationId?: string;
  /** Overrides the transport's default deadline for this call. */
  timeoutMs?: number;
}

export interface TransportOptions {
  target: string;
  host: string;
  port?: number;
  protocol?: 'https' | 'http';
  insecure?: boolean;
  caFile?: string;
  credentialPrefix?: string;
  /** Default per-call deadline (ms). */
  timeoutMs?: number;
  /** API version for SOAPAction until the server's about.apiVersion is known. */
  apiVersion?: string;
  path?: string;
  /** Sockets kept per target. */
  connections?: number;
  logger?: Logger;
}

export interface WireStats {
  /** HTTP requests sent (each SOAP call is one), whatever their outcome. */
  roundTrips: number;
  byMethod: Record<string, number>;
}

export const SESSION_COOKIE = 'vmware_soap_session';

export class HttpSoapTransport {
  readonly stats: WireStats = { roundTrips: 0, byMethod: {} };
  apiVersion: string;
  private cookie: string | undefined;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  readonly ctx: FaultContext;

  constructor(readonly opts: TransportOptions) {
    const protocol = opts.protocol ?? 'https';
    const port = opts.port ?? (protocol === 'https' ? 443 : 80);
    const hostPart = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host;
    this.path = opts.path ?? '/sdk';
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.apiVersion = opts.apiVersion ?? '8.0';
    this.logger = opts.logger ?? silentLogger;
    this.ctx = { target: opts.target, host: opts.host, credentialPrefix: opts.credentialPrefix };
    let ca: string | undefined;
    if (protocol === 'https' && !opts.insecure && opts.caFile) {
      try {
        ca = readFileSync(opts.caFile, 'utf8');
      } catch (err) {
        throw new AppError('config_invalid', `vSphere target '${opts.target}': cannot read ca_file ${opts.caFile}`, {
          cause: err,
          hint: 'Point ca_file at a readable PEM file with the CA that signed vCenter’s certificate.',
        });
      }
    }
    this.pool = new Pool(`${protocol}://${hostPart}:${port}`, {
      connections: opts.connections ?? 8,
      connect: protocol === 'https' ? { rejectUnauthorized: !opts.insecure, ...(ca ? { ca } : {}) } : {},
      keepAliveTimeout: 30_000,
    });
  }

  /** Forgets the session cookie (vcsim refuses Login on a live cookie; a re-login starts clean). */
  clearCookie(): void {
    this.cookie = undefined;
  }

  get hasCookie(): boolean {
    return this.cookie !== undefined;
  }

  /**
   * Calls `method` on `thisRef` with `params` (field order = WSDL order) and returns the decoded
   * `returnval`. Throws AppError: the SOAP fault translated, or a transport error.
   */
  async call(method: string, thisRef: MoRef, params: Record<string, unknown>, opts: CallOptions = {}): Promise<unknown> {
    const ctx = { ...this.ctx, method };
    let body = `<${method} xmlns="urn:vim25">${encodeElement('_this', thisRef)}`;
    for (const [k, v] of Object.entries(params)) body += encodeElement(k, v);
    body += `</${method}>`;
    const header = opts.operationId ? `<soapenv:Header><operationID>${escapeXml(opts.operationId)}</operationID></soapenv:Header>` : '';
    const envelope =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
      'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
      `${header}<soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;

    const headers: Record<string, string> = {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: `urn:vim25/${this.apiVersion}`,
    };
    if (this.cookie !== undefined) headers.cookie = `${SESSION_COOKIE}=${this.cookie}`;

    const deadline = new AbortController();
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => deadline.abort(new Error('deadline')), timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
    const why = (): 'timeout' | 'aborted' | undefined =>
      opts.signal?.aborted ? 'aborted' : deadline.signal.aborted ? 'timeout' : undefined;

    this.stats.roundTrips++;
    this.stats.byMethod[method] = (this.stats.byMethod[method] ?? 0) + 1;
    const started = Date.now();
    try {
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      const res = await this.pool.request({ path: this.path, method: 'POST', headers, body: envelope, signal });
      this.captureCookie(res.headers['set-cookie']);
      const text = await res.body.text();
      this.logger.debug(
        { target: this.opts.target, method, status: res.statusCode, ms: Date.now() - started, bytes: text.length },
        'vim25 call',
      );
      if (res.statusCode !== 200 && res.statusCode !== 500) {
        const retryable = res.statusCode === 502 || res.statusCode === 503 || res.statusCode === 504;
        throw new AppError(
          'unreachable',
          `vSphere target '${this.opts.target}' (${this.opts.host}) answered HTTP ${res.statusCode} to ${method}`,
          { retryable, details: { target: this.opts.target, method, status: res.statusCode } },
        );
      }
      let parsed;
      try {
        parsed = parseEnvelope(text);
      } catch (err) {
        throw new AppError('vim_fault', `vSphere target '${this.opts.target}' sent an unreadable ${method} response`, {
          cause: err,
          details: { target: this.opts.target, method, status: res.statusCode },
        });
      }
      if (parsed.fault) throw faultToAppError(parsed.fault, ctx);
      if (res.statusCode === 500) {
        throw new AppError('vim_fault', `vSphere target '${this.opts.target}' failed ${method} without a fault`, {
          details: { target: this.opts.target, method, status: 500 },
        });
      }
      return parsed.returnval;
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw transportToAppError(err, ctx, why());
    } finally {
      clearTimeout(timer);
    }
  }

  private captureCookie(header: string | string[] | undefined): void {
    for (const line of header === undefined ? [] : Array.isArray(header) ? header : [header]) {
      const first = line.split(';', 1)[0] ?? '';
      const eq = first.indexOf('=');
      if (eq < 0 || first.slice(0, eq).trim() !== SESSION_COOKIE) continue;
      // Kept verbatim: vCenter quotes the value, vcsim does not; both expect it back as sent.
      this.cookie = first.slice(eq + 1).trim();
    }
  }

  /** Drops every socket, including calls still in flight (a hung target must not block shutdown). */
  async close(): Promise<void> {
    await this.pool.destroy().catch(() => undefined);
  }
}
