// DNS rebinding defence: a web page on evil.example whose name is re-pointed at 127.0.0.1 reaches
// the dashboard as a "same-origin" page of evil.example, with `Host: evil.example:8787`. Every
// request must name this dashboard in its Host header: the bind address, or for a loopback or
// wildcard bind the names that reach it locally. Anything else is refused before authentication.
import { hostname, networkInterfaces } from 'node:os';
import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Host header values (lower case, with port) this dashboard answers to. */
export function allowedHostHeaders(bindHost: string, port: number, extra: readonly string[] = []): Set<string> {
  const bracket = (h: string): string => (h.includes(':') && !h.startsWith('[') ? `[${h}]` : h);
  const names = new Set<string>([bracket(bindHost.toLowerCase()), ...extra.map((e) => e.toLowerCase())]);
  const loopback = bindHost === 'localhost' || bindHost === '::1' || bindHost.startsWith('127.');
  const wildcard = bindHost === '0.0.0.0' || bindHost === '::';
  if (loopback || wildcard) for (const n of LOOPBACK_NAMES) names.add(n);
  if (wildcard) {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(bracket(a.address.toLowerCase()));
  }
  return new Set([...names].map((n) => (n.includes(':') && !n.startsWith('[') ? n : `${n}:${port}`)));
}

export function hostAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const host = req.headers.host;
  return typeof host === 'string' && allowed.has(host.trim().toLowerCase());
}
