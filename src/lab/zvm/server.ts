// startLabZvm: one simulated ZVM appliance (Keycloak + /v1) for one lab Zerto site, on 127.0.0.1
// over TLS signed by the lab CA (or plain HTTP), recording every route it serves in the shared
// call log. `behaviour` says how it deviates (tests flip it through testing/faults.ts); `state`
// lets tests look inside.

import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { LabCallLog } from '../call-log.js';
import type { GuestFileSystems } from '../guest-files.js';
import type { LabZertoSite } from '../topology.js';
import { LabZvmBehaviour } from './behaviour.js';
import { LabJournal } from './journal.js';
import { checkBearer, keycloakRoutes } from './keycloak.js';
import { flrRoutes } from './routes-flr.js';
import { protectionRoutes } from './routes-protection.js';
import type { LabRecoveryVcenter } from './recovery.js';
import { recoveryRoutes } from './routes-recovery.js';
import { taskRoutes } from './routes-tasks.js';
import { LabZvmState } from './state.js';
import { HttpError, readBody, sendError, type Route } from './wire.js';

export interface LabZvmOptions {
  site: LabZertoSite;
  guests: GuestFileSystems;
  /** Password-grant credentials (client `zerto-client`). */
  credentials: { user: string; password: string };
  /** Enables client_credentials for any client id other than `zerto-client`. */
  clientSecret?: string;
  /**
   * The VPG journals, shared with the other ZVMs of the lab (a VPG's two sites list the same
   * checkpoints). The owner ticks it through each ZVM; default: a journal of this ZVM's own.
   */
  journal?: LabJournal;
  /** The simulated vCenter a clone or failover test creates its VMs in, by target (the recovery site's `recoveryTarget`). */
  recoveryVcenter?: (target: string) => LabRecoveryVcenter | undefined;
  /** HTTPS with the lab certificate (default) or plain HTTP. */
  tls?: boolean;
  callLog?: LabCallLog;
  /** Automatic checkpoint interval (default 2000 ms). */
  autoCheckpointMs?: number;
  /** Duration of every task (default 1500 ms). */
  taskDurationMs?: number;
  /** Access-token lifetime (default 300 s, Keycloak's stock default). */
  tokenLifetimeSec?: number;
  port?: number;
}

export interface LabZvm {
  url: string;
  behaviour: LabZvmBehaviour;
  state: LabZvmState;
  close(): Promise<void>;
}

/** PEM files of the lab TLS material (src/lab/tls, copied to dist/lab/tls by the build). */
export const LAB_TLS = {
  ca: fileURLToPath(new URL('../tls/lab-ca.pem', import.meta.url)),
  cert: fileURLToPath(new URL('../tls/lab-server.pem', import.meta.url)),
  key: fileURLToPath(new URL('../tls/lab-server-key.pem', import.meta.url)),
};

export async function startLabZvm(opts: LabZvmOptions): Promise<LabZvm> {
  const behaviour = new LabZvmBehaviour();
  const state = new LabZvmState(opts.site, opts.guests, behaviour, opts.taskDurationMs ?? 1500, opts.journal ?? new LabJournal(), opts.recoveryVcenter);
  let baseUrl = '';
  const base = (): string => baseUrl;
  const routes: Route[] = [
    ...keycloakRoutes(state, { credentials: opts.credentials, tokenLifetimeSec: opts.tokenLifetimeSec ?? 300, ...(opts.clientSecret ? { clientSecret: opts.clientSecret } : {}) }),
    // Before protectionRoutes: `/v1/vpgs/statuses` must not be read as VPG id 'statuses'.
    ...taskRoutes(state, base),
    ...protectionRoutes(state, base),
    ...flrRoutes(state, base),
    ...recoveryRoutes(state, state.recoveries),
  ];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    serve(req, res, routes, state, opts).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `Internal error: ${(err as Error).message}`);
      else res.destroy();
    });
  };
  const tls = opts.tls ?? true;
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(LAB_TLS.cert), key: readFileSync(LAB_TLS.key) }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  baseUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const timer = setInterval(() => state.tick(), opts.autoCheckpointMs ?? 2000);
  timer.unref();
  return {
    url: baseUrl,
    behaviour,
    state,
    close: async () => {
      clearInterval(timer);
      state.recoveries.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, routes: Route[], state: LabZvmState, opts: LabZvmOptions): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://lab');
  const method = (req.method ?? 'GET').toUpperCase();
  let match: { r: Route; params: string[] } | undefined;
  for (const r of routes) {
    if (r.method !== method) continue;
    const m = r.pattern.exec(url.pathname);
    if (m) {
      match = { r, params: m.slice(1).map(decodeURIComponent) };
      break;
    }
  }
  if (!match) return sendError(res, 404, `No HTTP resource was found that matches the request URI '${url.pathname}'.`);
  const { r, params } = match;
  opts.callLog?.record(`zvm:${state.site.name}`, `${method} ${r.template}`, params[0]);
  const injected = state.behaviour.takeRouteFault(`${method} ${r.template}`);
  if (injected !== null) return sendError(res, injected.status, injected.message);
  const delay = state.behaviour.routeDelays.get(`${method} ${r.template}`.toLowerCase());
  if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
  if (res.destroyed) return;
  const late = state.behaviour.answerDelays.get(`${method} ${r.template}`.toLowerCase());
  if (late) holdAnswer(res, late);
  let principal = '';
  if (r.auth) {
    const who = checkBearer(state, req.headers.authorization);
    if (!who) return sendError(res, 401, 'Authorization has been denied for this request.');
    principal = who;
  }
  try {
    const text = method === 'GET' || method === 'DELETE' ? '' : await readBody(req);
    let body: unknown;
    if (!r.auth) body = new URLSearchParams(text);
    else if (text.trim()) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'The request body is not valid JSON');
      }
    }
    await r.handle({ req, res, url, params, body, route: `${method} ${r.template}`, principal });
  } catch (err) {
    if (err instanceof HttpError) return sendError(res, err.status, err.message, err.headers);
    throw err;
  }
}

/** The route's work is done now; what it answers leaves `ms` later (faults.delayAnswer). */
function holdAnswer(res: ServerResponse, ms: number): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    setTimeout(() => { if (!res.destroyed) end(...args); }, ms);
    return res;
  }) as ServerResponse['end'];
}
