// The HTTP(S) side: POST /sdk with a SOAP envelope, answered the way vCenter answers: 200 with a
// `<XxxResponse>` or 500 with a SOAP fault, the session in a quoted `vmware_soap_session` cookie.
// Also the dispatcher (auth, receiver type checks, fault knobs, call log) and the network knobs
// (stop listening / listen again on the same port, drop hung requests).

import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { LabCallLog } from '../call-log.js';
import { vcUserName } from './events.js';
import type { Call, Lab } from './context.js';
import { faults, VimFault } from './faults.js';
import { METHODS } from './methods.js';
import { isA } from './model.js';
import { sessionCookie, sessionKeyFromCookie } from './sessions.js';
import { child, moRefOf, parseSoapRequest } from './soap-parse.js';
import { MoRef } from './vim-values.js';
import { faultEnvelope, responseEnvelope, withWireVersion } from './xml-writer.js';
import { serviceVersionsXml, wireVersionOf } from './api-versions.js';

export type HangDuration = number | 'forever';

/** What the HTTP layer must do with a call before serving it (tests plan delays and hangs). */
export interface CallPlan {
  delayMs: number;
  /** Never answer; destroy the socket after this many ms ('forever': only on reset/close). */
  hang?: HangDuration;
}

export interface CallPlanner {
  planFor(method: string): CallPlan;
}

/** Network control the HTTP server offers (the test knobs take the endpoint off the network). */
export interface Reachability {
  stopListening(): Promise<void>;
  listenAgain(): Promise<void>;
  /** Drops requests held by a hang (their sockets are destroyed). */
  releaseHung(): void;
}

/** `--lab` serves every call at once; only tests install another planner. */
const SERVE_NOW: CallPlanner = { planFor: () => ({ delayMs: 0 }) };

export interface ServerOptions {
  tls: boolean;
  certFile: URL;
  keyFile: URL;
  callLog?: LabCallLog;
  apiVersion: string;
  onRoundTrip(): void;
}

export interface LabHttpServer extends Reachability {
  port: number;
  url: string;
  close(): Promise<void>;
  setPlanner(planner: CallPlanner): void;
}

interface Answer {
  status: number;
  body: string;
  cookie?: string;
}

interface Request {
  xml: string;
  cookie: string | undefined;
  soapAction: string | undefined;
  ip: string;
  userAgent: string;
  /** Aborted when the client closes the connection (ends a WaitForUpdates poll). */
  signal: AbortSignal;
}

function faultAnswer(err: unknown): Answer {
  const f = err instanceof VimFault ? err : faults.systemError(err instanceof Error ? err.message : String(err));
  return { status: 500, body: faultEnvelope(f.faultType, f.message, f.fields) };
}

async function dispatch(lab: Lab, r: Request, log?: LabCallLog): Promise<Answer> {
  let call: Call;
  let result: unknown;
  const wireVersion = wireVersionOf(r.soapAction, lab.model.apiVersion);
  try {
    const req = parseSoapRequest(r.xml);
    const method = req.method;
    const rawThis = moRefOf(child(req.call, '_this'));
    log?.record(`vcenter:${lab.target}`, method, rawThis?.value);
    const def = METHODS[method];
    const session = lab.sessions.touch(sessionKeyFromCookie(r.cookie));
    if (!def?.anonymous && !session) throw faults.notAuthenticated(rawThis ?? new MoRef('ServiceInstance', 'ServiceInstance'), method);
    if (!rawThis) throw faults.invalidArgument('_this');
    const type = lab.model.typeOf(rawThis.value);
    if (!type) throw faults.managedObjectNotFound(rawThis);
    const self = new MoRef(type, rawThis.value);
    if (!def || !def.on.some((t) => isA(type, t))) throw faults.methodNotFound(self, method);
    lab.current.session = session;
    call = {
      lab, method, self, node: req.call, session, clientIp: r.ip, userAgent: r.userAgent, wireVersion, signal: r.signal,
      userName: session ? vcUserName(session.userName) : '', userNameOf: vcUserName,
    };
    result = withWireVersion(wireVersion, () => def.run(call));
  } catch (err) {
    return faultAnswer(err);
  } finally {
    lab.current.session = undefined;
  }
  try {
    // Only the update waits (WaitForUpdatesEx and friends) answer later.
    if (result instanceof Promise) result = await result;
    lab.current.session = call.session;
    const answer: Answer = { status: 200, body: withWireVersion(wireVersion, () => responseEnvelope(call.method, result)) };
    if (call.newSession) answer.cookie = sessionCookie(call.newSession.key);
    return answer;
  } catch (err) {
    return faultAnswer(err);
  } finally {
    lab.current.session = undefined;
  }
}

export async function serveLab(lab: Lab, o: ServerOptions): Promise<LabHttpServer> {
  let planner = SERVE_NOW;
  const sockets = new Set<Socket>();
  const hung = new Set<Socket>();

  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/sdk/vimServiceVersions.xml') {
      res.writeHead(200, { 'content-type': 'text/xml' }).end(serviceVersionsXml(o.apiVersion));
      return;
    }
    if (req.method !== 'POST' || path !== '/sdk') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      o.onRoundTrip();
      const xml = Buffer.concat(chunks).toString('utf8');
      const method = /<(?:\w+:)?Body[^>]*>\s*<(?:\w+:)?(\w+)/.exec(xml)?.[1] ?? '';
      const plan = planner.planFor(method);
      if (plan.hang !== undefined) {
        // A hung target: the call is logged (it reached vCenter) but never answered.
        o.callLog?.record(`vcenter:${lab.target}`, method, /<_this[^>]*>([^<]*)</.exec(xml)?.[1]);
        hung.add(req.socket);
        req.socket.once('close', () => hung.delete(req.socket));
        if (plan.hang !== 'forever') setTimeout(() => req.socket.destroy(), plan.hang).unref();
        return;
      }
      const gone = new AbortController();
      res.once('close', () => gone.abort());
      const respond = async (): Promise<void> => {
        const a = await dispatch(lab, {
          xml, cookie: req.headers.cookie, soapAction: String(req.headers.soapaction ?? ''),
          ip: req.socket.remoteAddress ?? '127.0.0.1', userAgent: String(req.headers['user-agent'] ?? ''), signal: gone.signal,
        }, o.callLog);
        const headers: Record<string, string> = { 'content-type': 'text/xml; charset=utf-8' };
        if (a.cookie) headers['set-cookie'] = o.tls ? a.cookie : a.cookie.replace(' Secure;', '');
        if (!res.destroyed) res.writeHead(a.status, headers).end(a.body);
      };
      if (plan.delayMs > 0) setTimeout(() => void respond(), plan.delayMs).unref();
      else void respond();
    });
  };

  const server = o.tls
    ? https.createServer({ cert: readFileSync(o.certFile), key: readFileSync(o.keyFile) }, handler)
    : http.createServer(handler);
  server.keepAliveTimeout = 60_000;
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  // The raw TCP socket: destroying it also ends a TLS session layered on it.
  server.on('connection', track);

  const listen = (port: number): Promise<number> => new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  const port = await listen(0);
  const destroyAll = (): void => {
    for (const s of sockets) s.destroy();
  };
  const stop = (): Promise<void> => new Promise((resolve) => {
    server.close(() => resolve());
    destroyAll();
  });
  const scheme = o.tls ? 'https' : 'http';
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}/sdk`,
    stopListening: stop,
    listenAgain: async () => {
      await listen(port);
    },
    releaseHung: () => {
      for (const s of hung) s.destroy();
      hung.clear();
    },
    close: async () => {
      if (server.listening) await stop();
      destroyAll();
    },
    setPlanner: (p) => {
      planner = p;
    },
  };
}
