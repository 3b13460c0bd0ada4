// An issuer that accepts connections and never answers: token checks give up within their bound
// with an error that says so, and later requests are answered at once during the back-off
// instead of queueing behind the hung issuer. Over HTTP, a real MCP client gets 503
// temporarily_unavailable with Retry-After within that bound, not a hang and not a 401.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUER_BACKOFF_MS, ISSUER_TIMEOUT_MS, IssuerUnavailableError, TokenVerifier } from '../../../src/mcp/http/token-verifier.js';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from '../../support/test-issuer.js';
import { connectHttpClient } from '../../support/http-client.js';
import { serveHttp } from '../../../src/app/serve-http.js';
import { loadHttpConfig } from '../../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../../src/mcp/http/mcp-http-server.js';
import type { Logger } from '../../../src/core/logger.js';

let hung: Server;
const sockets: Socket[] = [];
let requestsSeen = 0;
let issuer: string;

beforeAll(async () => {
  hung = createServer((s) => {
    sockets.push(s);
    // Request lines seen (a kept-alive connection may carry several).
    s.on('data', (d) => { requestsSeen += (d.toString('latin1').match(/^GET /gm) ?? []).length; });
  });
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => hung.close(() => r()));
});

describe('a hung issuer', () => {
  it('bounds the check, says the issuer did not answer, and backs off', async () => {
    let now = 0;
    const v = new TokenVerifier({ issuer, audience: 'https://mcp.example/mcp', issuerTimeoutMs: 300, issuerBackoffMs: 60_000, now: () => now });
    const first = await v.verify('junk.token.value').then(() => undefined, (e: unknown) => e);
    expect(first).toBeInstanceOf(IssuerUnavailableError);
    expect((first as Error).message).toMatch(/did not answer discovery within 0.3s/);
    const connectionsAfterFirst = sockets.length;
    // During the back-off: answered at once, no new connection to the hung issuer.
    const again = await Promise.all(Array.from({ length: 20 }, () => v.verify('junk.token.value').then(() => undefined, (e: unknown) => e)));
    for (const e of again) expect(e).toBeInstanceOf(IssuerUnavailableError);
    expect((again[0] as IssuerUnavailableError).retryAfterSeconds).toBe(60);
    expect(sockets.length).toBe(connectionsAfterFirst);
    // After it, the issuer is tried again.
    now += 61_000;
    await expect(v.verify('junk.token.value')).rejects.toBeInstanceOf(IssuerUnavailableError);
    expect(sockets.length).toBeGreaterThan(connectionsAfterFirst);
  }, 30_000);
});

describe('a hung issuer over HTTP', () => {
  let h: LabHarness;
  let keys: TestIssuer;
  let endpoint: McpHttpHandle;
  const warnings: string[] = [];
  const logger: Logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_o, msg) => { warnings.push(msg ?? ''); } };

  beforeAll(async () => {
    // A well-formed token naming the hung issuer: only the issuer's silence stands in its way.
    keys = await startTestIssuer();
    h = await startLabHarness();
    endpoint = await serveHttp(h.runtime, loadHttpConfig({ OAUTH_ISSUER: issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: 'https://mcp.team.example' }, false), logger);
  }, 60_000);
  afterAll(async () => {
    await endpoint?.close();
    await h?.close();
    await keys?.close();
  });

  /** A real MCP client connecting with a token; what /mcp answered is recorded from its own fetch. */
  async function connectRecording(): Promise<{ error: unknown; answers: Response[]; ms: number }> {
    const token = await keys.sign({ sub: 'alice', scope: ALL_SCOPES }, { audience: 'https://mcp.team.example/mcp', issuer });
    const answers: Response[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      answers.push(res.clone());
      return res;
    };
    const started = performance.now();
    const error = await connectHttpClient(`${endpoint.listenUrl}/mcp`, token, 'hung-issuer', { fetch: recording }).then(async (c) => { await c.close(); return undefined; }, (e: unknown) => e);
    return { error, answers, ms: performance.now() - started };
  }

  it('answers 503 temporarily_unavailable with Retry-After within the issuer bound, then at once during the back-off', async () => {
    const requestsBefore = requestsSeen;
    const first = await connectRecording();
    // What the client itself reports: the status and the server's words, so its user learns why.
    // The v2 client (2026-07-28) carries the status and the body in `data`.
    expect(first.error).toMatchObject({ data: { status: 503, text: expect.stringContaining('temporarily_unavailable') } });
    // The bound is the issuer timeout; the rest of the budget is one request's own handling.
    expect(first.ms).toBeLessThan(ISSUER_TIMEOUT_MS + 2_000);
    expect(requestsSeen).toBe(requestsBefore + 1);
    const answer = first.answers.at(-1)!;
    expect(answer.status).toBe(503);
    expect(Number(answer.headers.get('retry-after'))).toBe(ISSUER_BACKOFF_MS / 1000);
    const body = await answer.json() as { error: string; error_description: string };
    expect(body.error).toBe('temporarily_unavailable');
    expect(body.error_description).toMatch(/did not answer discovery within 5s/);
    expect(answer.headers.get('www-authenticate')).toBeNull();
    expect(warnings).toContain('the identity provider is unavailable; answering 503');

    // During the back-off, every client is answered 503 at once and the hung issuer is asked nothing more.
    const requestsAfterFirst = requestsSeen;
    const more = await Promise.all(Array.from({ length: 5 }, () => connectRecording()));
    for (const m of more) {
      expect(m.answers.at(-1)!.status).toBe(503);
      expect(Number(m.answers.at(-1)!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(m.ms).toBeLessThan(ISSUER_TIMEOUT_MS);
    }
    expect(requestsSeen).toBe(requestsAfterFirst);
  }, 60_000);
});
