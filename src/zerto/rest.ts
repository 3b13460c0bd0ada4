// Authenticated JSON calls against /v1. Owns the cross-cutting rules every endpoint shares:
// bearer header, one re-login and replay on 401, a bounded retry of idempotent calls on 5xx and
// network failures, zod at the boundary, and redaction of every error message. Logs carry method,
// route, status and duration only: never headers or bodies.

import type { z } from 'zod';
import { AppError } from '../core/errors.js';
import { header, type TokenManager } from './auth.js';
import { routeOf, type HttpMethod, type RawResponse, type ZvmHttp } from './http.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { ZertoSiteConfig } from './site-config.js';
import { sleep } from './sleep.js';
import { httpFailureError, redactSecrets } from './wire-errors.js';
import { ownText } from '../core/own-text.js';

export interface CallOptions<T> {
  query?: Record<string, string | undefined>;
  body?: unknown;
  schema: z.ZodType<T>;
  /** Safe to repeat after a 5xx. Defaults to true for GET, false otherwise. */
  idempotent?: boolean;
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
}

export interface RawCallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
  maxBytes?: number;
  /** Send the bearer token. Only ever true for URLs on the ZVM's own origin. */
  bearer: boolean;
}

const RETRY_DELAYS_MS = [250, 1000];

export class ZvmRest {
  private readonly log: Logger;

  constructor(
    readonly site: ZertoSiteConfig,
    private readonly http: ZvmHttp,
    private readonly auth: TokenManager,
    private readonly timeoutMs: number,
    logger?: Logger,
  ) {
    this.log = logger ?? silentLogger;
  }

  async call<T>(method: HttpMethod, path: string, opts: CallOptions<T>): Promise<T> {
    const url = new URL(this.site.url + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await this.send(method, url.toString(), headers, body, {
      bearer: true, signal: opts.signal, timeoutMs: opts.timeoutMs ?? this.timeoutMs,
    }, opts.idempotent ?? method === 'GET');
    if (res.status < 200 || res.status >= 300) throw this.failure(method, url.toString(), res);
    return this.parse(method, url.toString(), res, opts.schema);
  }

  /** GET an absolute URL (an FLR download link). Non-2xx is returned, not thrown. */
  async raw(url: string, opts: RawCallOptions): Promise<RawResponse> {
    return this.send('GET', url, { accept: '*/*' }, undefined, opts, false);
  }

  failure(method: string, url: string, res: RawResponse): AppError {
    return httpFailureError({
      site: this.site.name, method, route: routeOf(url), status: res.status, body: res.body,
      contentType: header(res.headers['content-type']), secrets: this.auth.secretValues(),
    });
  }

  private async send(
    method: HttpMethod, url: string, baseHeaders: Record<string, string>, body: string | undefined,
    opts: RawCallOptions, idempotent: boolean,
  ): Promise<RawResponse> {
    let replayedAfter401 = false;
    let retries = 0;
    for (;;) {
      const started = Date.now();
      const headers = { ...baseHeaders };
      let token: string | undefined;
      if (opts.bearer) {
        token = await this.auth.token(opts.signal);
        headers['authorization'] = `Bearer ${token}`;
      }
      let res: RawResponse;
      try {
        res = await this.http.send({ method, url, headers, body, signal: opts.signal, timeoutMs: opts.timeoutMs ?? this.timeoutMs, ...(opts.maxBytes ? { maxBytes: opts.maxBytes } : {}) });
      } catch (err) {
        const retry = idempotent && err instanceof AppError && err.code === 'unreachable' && err.retryable && retries < RETRY_DELAYS_MS.length;
        if (!retry) throw err;
        await sleep(RETRY_DELAYS_MS[retries++]!, opts.signal);
        continue;
      }
      this.log.debug({ site: this.site.name, method, route: routeOf(url), status: res.status, ms: Date.now() - started }, 'zvm call');
      if (res.status === 401 && token && !replayedAfter401) {
        // Expired or revoked token: log in once more and replay this request once.
        this.auth.invalidate(token);
        replayedAfter401 = true;
        continue;
      }
      if (res.status >= 500 && idempotent && retries < RETRY_DELAYS_MS.length) {
        this.log.info({ site: this.site.name, method, route: routeOf(url), status: res.status }, 'zvm call failed; retrying');
        await sleep(RETRY_DELAYS_MS[retries++]!, opts.signal);
        continue;
      }
      return res;
    }
  }

  private parse<T>(method: string, url: string, res: RawResponse, schema: z.ZodType<T>): T {
    const text = res.body.toString('utf8').trim();
    let value: unknown = null;
    if (text.length > 0) {
      try {
        value = JSON.parse(text);
      } catch {
        // Action endpoints are documented to return a JSON string literal; accept the bare text
        // too, since an intermediary or a text/plain formatter may drop the quotes.
        value = text;
      }
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new AppError('zerto_error', redactSecrets(`Zerto site '${this.site.name}' answered ${method} ${routeOf(url)} with an unexpected shape (${issues}).`, this.auth.secretValues()), {
      hint: ownText('This ZVM version may differ from the one this server was built against; report the ZVM version.'),
      details: { site: this.site.name, route: `${method} ${routeOf(url)}` },
    });
  }
}
