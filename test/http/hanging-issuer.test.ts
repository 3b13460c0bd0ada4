// An issuer that accepts connections and never answers: token checks give up within their bound
// with an error that says so, and later requests are answered at once during the back-off
// instead of queueing behind the hung issuer.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssuerUnavailableError, TokenVerifier } from '../../src/http/token-verifier.js';

let hung: Server;
const sockets: Socket[] = [];
let issuer: string;

beforeAll(async () => {
  hung = createServer((s) => { sockets.push(s); });
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
