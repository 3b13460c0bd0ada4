// A TCP relay on 127.0.0.1 to a local port that can go silent: a network black hole (a partition,
// a firewall dropping packets) rather than a stopped server. While silent it forwards nothing in
// either direction and closes nothing: connections stay open, bytes wait in the socket buffers
// (as in TCP retransmission queues), new connections are accepted and get no answer. When it
// forwards again, what waited flows on, as when a partition heals.
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpRelay {
  port: number;
  /** `url` with its port replaced by the relay's. */
  via(url: string): string;
  /** true: forward nothing, close nothing; false: forward again. */
  silent(on: boolean): void;
  close(): Promise<void>;
}

export async function startTcpRelay(upstreamPort: number): Promise<TcpRelay> {
  let quiet = false;
  const pairs = new Set<[Socket, Socket]>();
  const hold = (pair: [Socket, Socket]) => {
    for (const s of pair) {
      if (quiet) s.pause();
      else s.resume();
    }
  };
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    // Hand-forwarded, not pipe(): a paused socket must stay paused whatever backpressure says.
    client.on('data', (d: Buffer) => upstream.write(d));
    upstream.on('data', (d: Buffer) => client.write(d));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    hold(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    via: (url) => {
      const u = new URL(url);
      u.port = String(port);
      return u.toString();
    },
    silent(on) {
      quiet = on;
      for (const pair of pairs) hold(pair);
    },
    async close() {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
