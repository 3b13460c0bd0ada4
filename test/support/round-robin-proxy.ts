// A plain round-robin reverse proxy: every request goes to the next upstream in turn, no affinity
// of any kind (no cookie, no Mcp-Session-Id routing). It keeps the public Host, as a load balancer
// in front of MCP_PUBLIC_URL does, and records which upstream served which path and JSON-RPC
// method/name. `upstreams` is read at each request, so a test may fill it after the proxy listens
// (a dashboard must know its public URL, the proxy's, before it starts).
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Routed { upstream: number; path: string; method?: string; name?: string }

export interface RoundRobinProxy {
  url: string;
  log: Routed[];
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** `publicHost`: the Host sent upstream; undefined keeps the one the client sent (the proxy's own). */
export async function startRoundRobinProxy(upstreams: string[], publicHost?: string): Promise<RoundRobinProxy> {
  let next = 0;
  const log: Routed[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const upstream = next;
      next = (next + 1) % upstreams.length;
      let msg: { method?: string; params?: { name?: string } } = {};
      try { msg = JSON.parse(body.toString('utf8')) as typeof msg; } catch { /* a GET or DELETE has no body */ }
      log.push({ upstream, path: new URL(req.url ?? '/', 'http://proxy.invalid').pathname, ...(msg.method ? { method: msg.method } : {}), ...(msg.params?.name ? { name: msg.params.name } : {}) });
      const target = new URL(req.url ?? '/', upstreams[upstream]);
      const out = request(target, { method: req.method, headers: { ...req.headers, ...(publicHost !== undefined ? { host: publicHost } : {}) } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      out.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
