// What the MCP endpoint checks before any MCP is spoken, and the two small conversions between
// node:http and the web-standard Request/Response the SDK's HTTP entries take.
// - DNS rebinding: a page on evil.example re-pointed at 127.0.0.1 reaches the endpoint "same
//   origin", with `Host: evil.example:<port>` and a matching Origin. Host must name this server
//   (the listen address, its loopback names, MCP_PUBLIC_URL's host, MCP_ALLOWED_HOSTS), and an
//   Origin, when a browser sends one, must be one of those too. CLI clients send no Origin.
// - Mcp-Method / Mcp-Name (SEP-2243): a reverse proxy may authorize by these headers without
//   reading the body, so a request whose headers say something else than its body is refused.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowedHostHeaders } from '../../dashboard/host-check.js';

/** Host header values (lower case, with port where one is needed) the endpoint answers to. */
export function endpointHosts(bindHost: string, port: number, publicUrl: string | undefined, extra: readonly string[]): Set<string> {
  const hosts = allowedHostHeaders(bindHost, port);
  for (const h of extra) hosts.add(h.trim().toLowerCase());
  if (publicUrl) {
    const u = new URL(publicUrl);
    // URL.host omits a default port, as a client's Host header does.
    hosts.add(u.host.toLowerCase());
  }
  return hosts;
}

/** Why a request is refused for where it claims to come from, or undefined. */
export function foreignRequest(req: IncomingMessage, hosts: ReadonlySet<string>): string | undefined {
  const host = req.headers.host?.trim().toLowerCase();
  if (!host || !hosts.has(host)) return `Host '${host ?? ''}' is not this server (set MCP_PUBLIC_URL or MCP_ALLOWED_HOSTS for the names clients use)`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let originHost: string | undefined;
  try {
    originHost = origin === 'null' ? undefined : new URL(origin).host.toLowerCase();
  } catch {
    originHost = undefined;
  }
  if (!originHost || !hosts.has(originHost)) return `Origin '${origin}' is not this server`;
  return undefined;
}

/** Why the standard headers disagree with the body, or undefined (absent headers are fine). */
export function headerMismatch(req: IncomingMessage, body: unknown): string | undefined {
  const method = header(req, 'mcp-method');
  const name = header(req, 'mcp-name');
  if (method === undefined && name === undefined) return undefined;
  if (Array.isArray(body) || body === null || typeof body !== 'object') return 'Mcp-Method/Mcp-Name name one request; the body is not one request';
  const msg = body as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
  if (method !== undefined && method !== msg.method) return `Mcp-Method '${method}' does not match the body's method '${String(msg.method)}'`;
  if (name !== undefined) {
    const bodyName = msg.params?.name ?? msg.params?.uri;
    if (name !== bodyName) return `Mcp-Name '${name}' does not match the body's '${String(bodyName)}'`;
  }
  return undefined;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export class BodyTooLarge extends Error {}

export async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new BodyTooLarge(`body larger than ${Math.round(max / 1024 / 1024)} MiB`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The node request as a web Request (the body already read), aborted when the client goes away. */
export function webRequest(req: IncomingMessage, res: ServerResponse, url: string, body: Buffer | undefined): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const abort = new AbortController();
  res.on('close', () => { if (!res.writableFinished) abort.abort(); });
  const method = req.method ?? 'GET';
  return new Request(url, { method, headers, signal: abort.signal, ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}) });
}

/** Writes a web Response to the node response, streaming its body (SSE) until either side ends. */
export async function sendWeb(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => { headers[k] = v; });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    if (done) break;
    res.write(value);
  }
  res.end();
}
