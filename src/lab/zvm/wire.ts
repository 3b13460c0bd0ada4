// HTTP plumbing for the simulated ZVM: routes, query-string keys and JSON body keys all matched
// case-insensitively (ASP.NET model binding is; the Exporter sends `vmname`, `vpgidentifier`), `{Message}` error bodies, and bare JSON
// string results for action endpoints.

import type { IncomingMessage, ServerResponse } from 'node:http';

export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
  /** Parsed JSON body (or the form for the token endpoint). */
  body: unknown;
  /** Route template, e.g. `POST /v1/vpgs/:id/checkpoints`. */
  route: string;
  /** Who the bearer token belongs to. */
  principal: string;
}

export interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  auth: boolean;
  handle: (ctx: RouteContext) => void | Promise<void>;
}

/** `/v1/vpgs/:id/checkpoints` -> a case-insensitive regex capturing each `:param`. */
export function route(method: string, template: string, handle: Route['handle'], auth = true): Route {
  const source = template.split('/').map((seg) => (seg.startsWith(':') ? '([^/]+)' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return { method, template, pattern: new RegExp(`^${source}/?$`, 'i'), auth, handle };
}

export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, 'Request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A query-string value by case-insensitive key (`vmName`, `vmname`, `VMNAME`); null when absent. */
export function queryParam(url: URL, name: string): string | null {
  const lower = name.toLowerCase();
  for (const [k, v] of url.searchParams) if (k.toLowerCase() === lower) return v;
  return null;
}

/** A member of a JSON object by case-insensitive name (`checkpointName` / `CheckpointName`). */
export function pick(obj: unknown, name: string): unknown {
  if (!obj || typeof obj !== 'object') return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export function pickString(obj: unknown, name: string): string | undefined {
  const v = pick(obj, name);
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (status === 401) {
    // Like a bearer-protected ASP.NET endpoint: no body, a WWW-Authenticate challenge.
    res.writeHead(401, { 'www-authenticate': 'Bearer', 'content-length': 0, ...headers });
    res.end();
    return;
  }
  sendJson(res, status, { Message: message }, headers);
}

/**
 * RFC 6266: an ASCII `filename=` for old readers (anything else marked `_`: header bytes outside
 * Latin-1 are refused or mangled by Node) and the real name, UTF-8, in RFC 5987 `filename*`.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export function sendBytes(res: ServerResponse, bytes: Buffer, fileName: string, contentType: string): void {
  res.writeHead(200, {
    'content-type': contentType,
    'content-length': bytes.length,
    'content-disposition': contentDisposition(fileName),
  });
  res.end(bytes);
}
