// The wire under the ZVM client: one undici Agent per site (its own TLS trust), bounded requests
// (a timeout on every call, the caller's AbortSignal honoured), bounded bodies, and network
// failures turned into AppErrors that name the site but never carry request headers. undici's
// own error objects are not attached as `cause`: some of them hold request options. undici loads
// with the first request: a server that never talks to a ZVM never pays for it (startup).

import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { AppError } from '../core/errors.js';
import type { ZertoSiteConfig } from './site-config.js';
import { ownText } from '../core/own-text.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RawRequest {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Larger bodies are refused rather than buffered (downloads pass their own limit). */
  maxBytes?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID', 'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID', 'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Set by the first getDispatcher(), which every request awaits before it is sent. */
let undici: typeof import('undici') | undefined;

export class ZvmHttp {
  private dispatcher: Promise<Dispatcher> | undefined;

  constructor(private readonly site: ZertoSiteConfig) {}

  /** Sends one request. Throws AppError for network failures, timeouts and cancellation only. */
  async send(req: RawRequest): Promise<RawResponse> {
    if (req.signal?.aborted) throw cancelled(this.site.name);
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const dispatcher = await this.getDispatcher();
    try {
      const res = await undici!.request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher,
      });
      const body = await readBounded(res.body, req.maxBytes ?? DEFAULT_MAX_BYTES, this.site.name);
      return { status: res.statusCode, headers: res.headers, body };
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (req.signal?.aborted) throw cancelled(this.site.name);
      if (timeout.aborted) {
        throw new AppError('timeout', `Zerto site '${this.site.name}' did not answer ${req.method} ${routeOf(req.url)} within ${Math.round(req.timeoutMs / 1000)} s.`, {
          hint: ownText('The ZVM may be overloaded or unreachable; try again, or check the appliance.'),
        });
      }
      throw networkError(this.site, err);
    }
  }

  async close(): Promise<void> {
    const d = this.dispatcher;
    this.dispatcher = undefined;
    if (d) await (await d).close().catch(() => undefined);
  }

  private getDispatcher(): Promise<Dispatcher> {
    this.dispatcher ??= (async () => {
      let ca: string | undefined;
      if (this.site.caFile) {
        try {
          ca = await readFile(this.site.caFile, 'utf8');
        } catch (err) {
          this.dispatcher = undefined;
          throw new AppError('config_invalid', `Zerto site '${this.site.name}': cannot read ca_file ${this.site.caFile}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`);
        }
      }
      undici ??= await import('undici');
      // A configured CA only matters with verification on; with it off, any certificate passes.
      return new undici.Agent({ connect: { rejectUnauthorized: this.site.verifyTls, ...(ca ? { ca } : {}) } });
    })();
    return this.dispatcher;
  }
}

async function readBounded(body: Dispatcher.ResponseData['body'], maxBytes: number, site: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > maxBytes) {
      body.destroy();
      throw new AppError('zerto_error', `Zerto site '${site}' sent a response larger than ${maxBytes} bytes; refusing to buffer it.`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function cancelled(site: string): AppError {
  return new AppError('cancelled', `The call to Zerto site '${site}' was cancelled.`, { retryable: true });
}

/** `/v1/vms` without the query string: query values are VM names, harmless, but noisy. */
export function routeOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url.split('?')[0] ?? url;
  }
}

function networkError(site: ZertoSiteConfig, err: unknown): AppError {
  const e = err as { code?: string; cause?: { code?: string }; message?: string };
  const code = e.code && e.code !== 'UND_ERR_SOCKET' ? e.code : (e.cause?.code ?? e.code ?? 'unknown');
  if (TLS_CODES.has(code)) {
    return new AppError('unreachable', `TLS verification of Zerto site '${site.name}' (${origin(site.url)}) failed: ${code}.`, {
      retryable: false,
      hint: ownText('Set ca_file to the CA that signed the appliance certificate, or verify_tls: false for a self-signed appliance you trust.'),
      details: { site: site.name, code },
    });
  }
  return new AppError('unreachable', `Cannot reach Zerto site '${site.name}' at ${origin(site.url)}: ${code}.`, {
    hint: ownText('Check the site url in config.json and that the ZVM appliance is running and reachable from this host.'),
    details: { site: site.name, code },
  });
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
