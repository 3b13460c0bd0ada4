// The wire: one undici Pool per target, the SOAP envelope, `SOAPAction: urn:vim25/<version>`, the
// `vmware_soap_session` cookie, the `operationID` header (our audit record id, so vCenter's logs
// and our audit join up), TLS per target, and a deadline plus the caller's AbortSignal on every
// call. HTTP 200 and 500 carry envelopes; anything else is a transport error. This layer knows
// nothing of sessions: re-login and keepalive sit above it (session.ts), as in govmomi.

import { readFileSync } from 'node:fs';
import type { Dispatcher, Pool } from 'undici';
import { AppError } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { MoRef } from '../types.js';
import { faultToAppError, transportToAppError, type FaultContext } from './faults.js';
import { encodeElement, escapeXml, parseEnvelope, type ParsedFault } from './xml.js';

/** Reads a 200 answer's body as it arrives (the streamed RetrieveResult decoder). */
export interface BodyReader<T> {
  write(chunk: Uint8Array): void;
  /** The body ended: the decoded value, or the SOAP fault it carried. */
  end(): { value: T } | { fault: ParsedFault };
}

import { ownText } from '../../core/own-text.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Sent as the SOAP `operationID` header; use the audit record id. */
  operationId?: string;
  /** Overrides the transport's default deadline for this call. */
  timeoutMs?: number;
  /**
   * The tool call this request belongs to (CallContext.callScope, through TargetPool.run): what
   * does not change within one call, the inventory tree, is read once per scope.
   */
  scope?: object;
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

/**
 * `request`, rejecting as soon as `signal` aborts. undici does not abort a request whose TLS
 * handshake is still pending (a host that accepts TCP and never answers): it waits for its own
 * connect timeout (10 s), which made every call to a hung vCenter take ~10.5 s whatever its
 * deadline. A request that loses the race is left to fail on its own, or its body is dropped.
 */
function untilAborted(request: Promise<Dispatcher.ResponseData>, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
  if (signal.aborted) {
    request.then((r) => r.body.destroy(), () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      request.then((r) => r.body.destroy(), () => undefined);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.then(
      (r) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) r.body.destroy();
        resolve(r);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export class HttpSoapTransport {
  readonly stats: WireStats = { roundTrips: 0, byMethod: {} };
  apiVersion: string;
  private cookie: string | undefined;
  private pool: Promise<Pool> | undefined;
  private connectedOnce = false;
  private closed = false;
  private readonly origin: string;
  private readonly poolOptions: Pool.Options;
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
        throw new AppError('config_invalid', ownText(`vSphere target '${opts.target}': cannot read ca_file ${opts.caFile}`), {
          cause: err,
          hint: ownText('Point ca_file at a readable PEM file with the CA that signed vCenter’s certificate.'),
        });
      }
    }
    this.origin = `${protocol}://${hostPart}:${port}`;
    this.poolOptions = {
      connections: opts.connections ?? 8,
      connect: protocol === 'https' ? { rejectUnauthorized: !opts.insecure, ...(ca ? { ca } : {}) } : {},
      keepAliveTimeout: 30_000,
    };
  }

  /** undici loads with the first call: a server that never talks to vSphere never pays for it. */
  private connection(): Promise<Pool> {
    if (this.closed) return Promise.reject(new Error('the transport is closed'));
    this.pool ??= import('undici').then(({ Pool }) => {
      const pool = new Pool(this.origin, this.poolOptions);
      // Emitted once TCP (and, for https, TLS) is up: the target is there, whatever it answers.
      pool.on('connect', () => { this.connectedOnce = true; });
      return pool;
    });
    return this.pool;
  }

  /** Forgets the session cookie (vcsim refuses Login on a live cookie; a re-login starts clean). */
  clearCookie(): void {
    this.cookie = undefined;
  }

  /** A connection to the target (TCP, and TLS for https) has completed at least once. */
  get hasConnected(): boolean {
    return this.connectedOnce;
  }

  get hasCookie(): boolean {
    return this.cookie !== undefined;
  }

  /**
   * Calls `method` on `thisRef` with `params` (field order = WSDL order) and returns the decoded
   * `returnval`. Throws AppError: the SOAP fault translated, or a transport error.
   */
  call(method: string, thisRef: MoRef, params: Record<string, unknown>, opts: CallOptions = {}): Promise<unknown> {
    return this.exchange(method, thisRef, params, opts, undefined);
  }

  /**
   * `call`, with a 200 answer's body handed to `reader` chunk by chunk as it arrives instead of
   * being read whole (other answers, faults and errors behave exactly as in `call`).
   */
  callReading<T>(method: string, thisRef: MoRef, params: Record<string, unknown>, opts: CallOptions, reader: BodyReader<T>): Promise<T> {
    return this.exchange(method, thisRef, params, opts, reader);
  }

  private async exchange<T>(
    method: string,
    thisRef: MoRef,
    params: Record<string, unknown>,
    opts: CallOptions,
    reader: BodyReader<T> | undefined,
  ): Promise<T> {
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
      const pool = await this.connection();
      const res = await untilAborted(pool.request({ path: this.path, method: 'POST', headers, body: envelope, signal }), signal);
      this.captureCookie(res.headers['set-cookie']);
      if (reader && res.statusCode === 200) return this.readStreamed(res, reader, ctx, started);
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
      return parsed.returnval as T;
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw transportToAppError(err, ctx, why());
    } finally {
      clearTimeout(timer);
    }
  }

  private async readStreamed<T>(res: Dispatcher.ResponseData, reader: BodyReader<T>, ctx: FaultContext & { method: string }, started: number): Promise<T> {
    let bytes = 0;
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      reader.write(chunk);
    }
    let out;
    try {
      out = reader.end();
    } catch (err) {
      throw new AppError('vim_fault', `vSphere target '${this.opts.target}' sent an unreadable ${ctx.method} response`, {
        cause: err,
        details: { target: this.opts.target, method: ctx.method, status: 200 },
      });
    }
    this.logger.debug({ target: this.opts.target, method: ctx.method, status: 200, ms: Date.now() - started, bytes }, 'vim25 call (streamed)');
    if ('fault' in out) throw faultToAppError(out.fault, ctx);
    return out.value;
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
    this.closed = true;
    const pool = this.pool;
    if (pool) await (await pool).destroy().catch(() => undefined);
  }
}
