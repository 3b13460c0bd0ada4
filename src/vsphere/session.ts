// A logged-in vim25 session over one transport: RetrieveServiceContent, Login with credentials read
// lazily from the secret source, Logout, a keepalive, and transparent re-login with ONE replay when
// vSphere says the session is gone. "Gone" is either a NotAuthenticated fault (vCenter) or a
// RetrievePropertiesEx answered 200 whose every missingSet fault is NotAuthenticated (vcsim), so
// both producers are covered. Concurrent calls that find the session expired share one re-login.
// A shared login belongs to no caller: it runs under its own bounded deadline (loginTimeoutMs),
// without any caller's signal or operationId, and each caller races only its own signal against
// it, so a caller giving up (a short fan-out read) never fails the others waiting on that login.

import { AppError } from '../core/errors.js';
import type { SecretSource } from '../core/secrets.js';
import { credentialHint, faultNameOf } from './soap/faults.js';
import type { BodyReader, CallOptions, HttpSoapTransport } from './soap/transport.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { asArray, asMoRef, moRef, type AboutInfo, type MoRef, type ServiceContent, type VimObject } from './types.js';
import { ownText } from '../core/own-text.js';

export const SERVICE_INSTANCE = moRef('ServiceInstance', 'ServiceInstance');

export interface SessionOptions {
  secrets: SecretSource;
  credentialPrefix: string;
  /** Keepalive period (ms); 0 disables. Default 5 minutes, below vCenter's 30-minute idle limit. */
  keepaliveMs?: number;
  logger?: Logger;
  /** Deadline of one shared login (service content + Login), whoever waits on it; default 60 s. */
  loginTimeoutMs?: number;
}

const DEFAULT_LOGIN_TIMEOUT_MS = 60_000;

const RETRIEVE_METHODS = new Set(['RetrievePropertiesEx', 'ContinueRetrievePropertiesEx', 'RetrieveProperties']);

/** vcsim answers an unauthenticated retrieval with 200 and NotAuthenticated in every missingSet. */
export function isUnauthenticatedRetrieve(returnval: unknown): boolean {
  const rv = returnval as { objects?: unknown } | unknown[] | undefined;
  const objects = Array.isArray(rv) ? rv : asArray<Record<string, unknown>>((rv as { objects?: unknown })?.objects);
  if (objects.length === 0) return false;
  return objects.every((o) => {
    const obj = o as Record<string, unknown>;
    if (asArray(obj.propSet).length > 0) return false;
    const missing = asArray<{ fault?: { fault?: VimObject } }>(obj.missingSet);
    return missing.length > 0 && missing.every((m) => m.fault?.fault?._type === 'NotAuthenticated');
  });
}

export class VimSession {
  serviceContent: ServiceContent | undefined;
  private loggedIn = false;
  private generation = 0;
  private loginInFlight: Promise<void> | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;
  /** Times a lost session was re-established (tests assert it). */
  relogins = 0;

  constructor(
    readonly transport: HttpSoapTransport,
    private readonly opts: SessionOptions,
  ) {
    this.logger = opts.logger ?? silentLogger;
  }

  get connected(): boolean {
    return this.loggedIn;
  }

  /** Reads the service content (no session needed) and adopts the server's api version. */
  async retrieveServiceContent(opts: CallOptions = {}): Promise<ServiceContent> {
    const raw = (await this.transport.call('RetrieveServiceContent', SERVICE_INSTANCE, {}, opts)) as VimObject;
    const about = (raw.about ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const info: AboutInfo = {
      apiVersion: str(about.apiVersion),
      instanceUuid: str(about.instanceUuid),
      fullName: str(about.fullName),
      version: str(about.version),
      apiType: str(about.apiType),
      build: str(about.build),
      name: str(about.name),
    };
    const ref = (k: string) => asMoRef(raw[k]);
    const need = (k: string): MoRef => {
      const r = ref(k);
      if (!r) throw new AppError('vim_fault', `vSphere target '${this.transport.opts.target}' has no ${k} in its service content`);
      return r;
    };
    this.serviceContent = {
      about: info,
      rootFolder: need('rootFolder'),
      propertyCollector: need('propertyCollector'),
      viewManager: need('viewManager'),
      sessionManager: need('sessionManager'),
      eventManager: ref('eventManager'),
      taskManager: ref('taskManager'),
      perfManager: ref('perfManager'),
      searchIndex: ref('searchIndex'),
      raw,
    };
    if (info.apiVersion) this.transport.apiVersion = info.apiVersion;
    return this.serviceContent;
  }

  /** Logs in unless already logged in; concurrent callers share the same login. */
  async ensureLoggedIn(opts: CallOptions = {}): Promise<void> {
    if (this.loggedIn) return;
    await this.sharedLogin(opts);
  }

  private sharedLogin(opts: CallOptions): Promise<void> {
    if (!this.loginInFlight) {
      const login = this.login().finally(() => {
        this.loginInFlight = undefined;
      });
      // Every waiter may have given up already; the outcome must not surface as unhandled.
      login.catch(() => undefined);
      this.loginInFlight = login;
    }
    return this.waitFor(this.loginInFlight, opts.signal);
  }

  /** `shared`, unless the caller's own signal aborts first (the shared work carries on). */
  private waitFor(shared: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return shared;
    const gaveUp = () =>
      signal.reason instanceof AppError
        ? signal.reason
        : new AppError('cancelled', ownText(`Stopped waiting for the login to vSphere target '${this.transport.opts.target}'`), {
            details: { target: this.transport.opts.target },
            retryable: true,
            cause: signal.reason,
          });
    if (signal.aborted) return Promise.reject(gaveUp());
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(gaveUp());
      signal.addEventListener('abort', onAbort, { once: true });
      shared.then(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /** One login under its own deadline, independent of whoever triggered it. */
  private async login(): Promise<void> {
    const { target } = this.transport.opts;
    const timeoutMs = this.opts.loginTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new AppError('timeout', `Login to vSphere target '${target}' (${this.transport.opts.host}) did not complete within ${timeoutMs} ms`, {
            details: { target, timeout_ms: timeoutMs },
            hint: ownText('vCenter is slow or hung; try again later.'),
          }),
        ),
      timeoutMs,
    );
    try {
      await this.loginWithin({ signal: deadline.signal });
    } catch (err) {
      // The transport reports our own abort as `cancelled`; it was the login deadline.
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async loginWithin(opts: CallOptions): Promise<void> {
    const { target } = this.transport.opts;
    const sc = this.serviceContent ?? (await this.retrieveServiceContent(opts));
    const user = this.opts.secrets.get(`${this.opts.credentialPrefix}_USER`);
    const password = this.opts.secrets.get(`${this.opts.credentialPrefix}_PASSWORD`);
    if (!user || !password) {
      throw new AppError('auth_failed', `No credentials for vSphere target '${target}'`, {
        hint: credentialHint(this.opts.credentialPrefix, target),
        details: { target },
      });
    }
    // vcsim refuses Login on a cookie whose session is alive; a real re-login must start clean.
    this.transport.clearCookie();
    this.loggedIn = false;
    await this.transport.call('Login', sc.sessionManager, { userName: user, password }, opts);
    this.loggedIn = true;
    this.generation++;
    this.startKeepalive();
    this.logger.info({ target, generation: this.generation }, 'vSphere session established');
  }

  /**
   * Calls a method with the session: logs in first if needed, and when the session turns out to
   * be gone, logs in again (once, shared with concurrent callers) and replays the call once.
   */
  async invoke(method: string, thisRef: MoRef, params: Record<string, unknown>, opts: CallOptions = {}): Promise<unknown> {
    const retrieve = RETRIEVE_METHODS.has(method);
    return this.withSession(method, opts, () => this.transport.call(method, thisRef, params, opts), (rv) => retrieve && isUnauthenticatedRetrieve(rv));
  }

  /**
   * `invoke` with the answer's body read as it streams in, by a fresh reader per attempt (a replay
   * after a re-login starts over). `unauthenticated` tells vcsim's lost-session answer from data.
   */
  invokeReading<T>(
    method: string,
    thisRef: MoRef,
    params: Record<string, unknown>,
    opts: CallOptions,
    makeReader: () => BodyReader<T>,
    unauthenticated: (value: T) => boolean,
  ): Promise<T> {
    return this.withSession(method, opts, () => this.transport.callReading(method, thisRef, params, opts, makeReader()), unauthenticated);
  }

  private async withSession<T>(method: string, opts: CallOptions, attempt: () => Promise<T>, unauthenticated: (value: T) => boolean): Promise<T> {
    const once = async (): Promise<T> => {
      const value = await attempt();
      if (unauthenticated(value)) {
        throw new AppError('auth_failed', ownText(`vSphere target '${this.transport.opts.target}': session not authenticated`), {
          details: { fault: 'NotAuthenticated', target: this.transport.opts.target, method },
          retryable: true,
        });
      }
      return value;
    };
    await this.ensureLoggedIn(opts);
    const generation = this.generation;
    try {
      return await once();
    } catch (err) {
      if (faultNameOf(err) !== 'NotAuthenticated') throw err;
      this.logger.warn({ target: this.transport.opts.target, method }, 'vSphere session expired; logging in again');
      await this.relogin(generation, opts);
      return await once();
    }
  }

  private async relogin(seenGeneration: number, opts: CallOptions): Promise<void> {
    // Another caller already replaced the session this call was made with: just replay.
    if (this.generation !== seenGeneration && this.loggedIn) return;
    if (!this.loginInFlight) {
      this.loggedIn = false;
      this.relogins++;
    }
    await this.sharedLogin(opts);
  }

  private startKeepalive(): void {
    const every = this.opts.keepaliveMs ?? 5 * 60_000;
    if (every <= 0 || this.keepaliveTimer) return;
    this.keepaliveTimer = setInterval(() => {
      void this.invoke('CurrentTime', SERVICE_INSTANCE, {}, { timeoutMs: 30_000 }).catch((err: unknown) => {
        this.logger.warn(
          { target: this.transport.opts.target, err: err instanceof Error ? err.message : String(err) },
          'vSphere keepalive failed',
        );
      });
    }, every);
    // A keepalive must never keep the process alive on its own.
    this.keepaliveTimer.unref();
  }

  private stopKeepalive(): void {
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = undefined;
  }

  /** Logs out (best effort, bounded) and forgets the session. */
  async logout(opts: CallOptions = {}): Promise<void> {
    this.stopKeepalive();
    const sc = this.serviceContent;
    if (this.loggedIn && sc) {
      await this.transport
        .call('Logout', sc.sessionManager, {}, { timeoutMs: 5_000, ...opts })
        .catch((err: unknown) =>
          this.logger.debug({ target: this.transport.opts.target, err: String(err) }, 'vSphere logout failed'),
        );
    }
    this.loggedIn = false;
    this.transport.clearCookie();
  }
}
