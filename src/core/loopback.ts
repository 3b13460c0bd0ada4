// Whether a host is this machine's loopback: the one test behind every "plain http only on this
// machine" and "unauthenticated only on loopback" decision (HTTP mode, the dashboard, the IdP).
import { isIP } from 'node:net';

/** `localhost`, 127.0.0.0/8 or ::1; an address, not a name that merely starts with "127.". URL.hostname's `[::1]` counts. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}
