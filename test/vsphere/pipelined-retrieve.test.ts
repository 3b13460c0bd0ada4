// The pipelined, streamed listing (property-collector.ts retrieve) against the simulated vCenter,
// which pages like vCenter: it returns exactly the rows and makes exactly the round trips of the
// sequential page-by-page retrieval it replaced, it really overlaps pages (the next page's request
// reaches the server while the previous answer is still arriving), and a listing that fails part
// way frees the server-side result set.

import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envSecretSource } from '../../src/core/secrets.js';
import { LAB_CREDENTIALS, LAB_VCENTERS } from '../../src/lab/topology.js';
import { startLabVcenter, type LabVcenterHandle } from '../../src/lab/vcenter/index.js';
import { TREE_TYPES } from '../../src/vsphere/inventory-tree.js';
import { retrieve, type PropertySpec } from '../../src/vsphere/property-collector.js';
import { decodeRetrieveResult } from '../../src/vsphere/soap/xml.js';
import type { TargetConfig } from '../../src/vsphere/target-config.js';
import type { MoRef, ObjectContent } from '../../src/vsphere/types.js';
import { VimClient } from '../../src/vsphere/vim-client.js';
import { VM_LIST_PATHS } from '../../src/vsphere/vms.js';
import { withContainerView } from '../../src/vsphere/views.js';

const LAB_CA = new URL('../../src/lab/tls/lab-ca.pem', import.meta.url).pathname;
const secrets = envSecretSource({ LAB_USER: LAB_CREDENTIALS.user, LAB_PASSWORD: LAB_CREDENTIALS.password });
const PROPS: PropertySpec[] = [
  { type: 'VirtualMachine', pathSet: VM_LIST_PATHS },
  ...TREE_TYPES.map((type) => ({ type, pathSet: ['name', 'parent'] })),
];
const viewSpec = (view: MoRef) => [{ obj: view, skip: true, selectSet: [{ name: 'view', type: 'ContainerView', path: 'view', skip: false }] }];

/** The retrieval as it was before pipelining: one page at a time, each read whole. */
async function sequential(client: VimClient, view: MoRef): Promise<ObjectContent[]> {
  const pc = client.content.propertyCollector;
  const spec = { propSet: PROPS.map((p) => ({ ...p, all: false })), objectSet: viewSpec(view).map((o) => ({ ...o, selectSet: o.selectSet.map((s) => ({ _type: 'TraversalSpec', ...s })) })) };
  let page = decodeRetrieveResult(await client.invoke('RetrievePropertiesEx', pc, { specSet: spec, options: { maxObjects: 500 } }));
  const out = [...page.objects];
  while (page.token !== undefined) {
    page = decodeRetrieveResult(await client.invoke('ContinueRetrievePropertiesEx', pc, { token: page.token }));
    out.push(...page.objects);
  }
  return out;
}

/**
 * A plain-TCP relay in front of the lab (http, so it can read requests) that trickles the server's
 * bytes to the client, 1 KB per event-loop turn, and notes for every ContinueRetrievePropertiesEx
 * request whether another connection's answer was still being delivered at that moment: from its
 * first byte until the end of its SOAP envelope has been passed on (not merely until the relay's
 * queue ran dry, which happens mid-answer whenever the lab hands over a page in pieces).
 */
const ENVELOPE_END = '</soapenv:Envelope>';

function tricklingRelay(port: number): Promise<{ server: Server; port: number; continues: boolean[] }> {
  const continues: boolean[] = [];
  const delivering = new Set<number>();
  let conns = 0;
  const server = createServer((client: Socket) => {
    const conn = ++conns;
    const upstream = createConnection({ host: '127.0.0.1', port });
    const queue: Buffer[] = [];
    // The last bytes passed on, to see an envelope's end even when it straddles two writes.
    let tail = '';
    let flushing = false;
    const flush = () => {
      const next = queue.shift();
      if (!next) {
        flushing = false;
        return;
      }
      const piece = next.subarray(0, 1024);
      client.write(piece);
      tail = (tail + piece.toString('latin1')).slice(-64);
      if (tail.includes(ENVELOPE_END)) {
        delivering.delete(conn);
        tail = '';
      }
      if (next.length > 1024) queue.unshift(next.subarray(1024));
      setImmediate(flush);
    };
    client.on('data', (d: Buffer) => {
      if (d.includes('<ContinueRetrievePropertiesEx')) continues.push([...delivering].some((c) => c !== conn));
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      queue.push(d);
      delivering.add(conn);
      if (!flushing) {
        flushing = true;
        flush();
      }
    });
    const end = () => {
      queue.length = 0;
      delivering.delete(conn);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, continues })));
}

describe('pipelined listing against the simulated vCenter (pages of 40)', () => {
  let lab: LabVcenterHandle;
  let target: TargetConfig;

  beforeAll(async () => {
    lab = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 300 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 20, pageSize: 40 });
    const url = new URL(lab.url);
    target = { name: 'lab', host: url.hostname, port: Number(url.port), protocol: 'https', insecure: false, caFile: LAB_CA, credentialPrefix: 'LAB', tags: [], standaloneHost: false };
  });
  afterAll(async () => {
    await lab?.close();
  });

  it('returns exactly the rows, in order, and makes exactly the round trips of the sequential retrieval', async () => {
    const client = new VimClient(target, { secrets, keepaliveMs: 0 });
    try {
      await client.connect();
      await withContainerView(client, ['VirtualMachine', ...TREE_TYPES], async (view) => {
        const before = { ...client.stats.byMethod };
        const old = await sequential(client, view);
        const mid = { ...client.stats.byMethod };
        const now = await retrieve(client, PROPS, viewSpec(view));
        const after = { ...client.stats.byMethod };
        const delta = (a: Record<string, number>, b: Record<string, number>) =>
          Object.fromEntries(Object.keys(b).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]).filter(([, n]) => n !== 0));
        expect(now).toStrictEqual(old);
        expect(old.filter((o) => o.obj.type === 'VirtualMachine').length).toBeGreaterThan(300);
        expect(delta(mid, after)).toStrictEqual(delta(before, mid));
        expect(delta(mid, after).ContinueRetrievePropertiesEx).toBeGreaterThan(5);
      });
    } finally {
      await client.close();
    }
  });

  it('asks for the next page while the previous answer is still arriving', async () => {
    const plain = await startLabVcenter({ vcenter: { ...LAB_VCENTERS[0]!, fillerVms: 300 }, credentials: { ...LAB_CREDENTIALS }, taskMs: 20, pageSize: 40, tls: false });
    const relay = await tricklingRelay(plain.port);
    const client = new VimClient({ ...target, port: relay.port, protocol: 'http', caFile: undefined }, { secrets, keepaliveMs: 0 });
    try {
      await client.connect();
      const rows = await withContainerView(client, ['VirtualMachine', ...TREE_TYPES], (view) => retrieve(client, PROPS, viewSpec(view)));
      expect(rows.length).toBeGreaterThan(300);
      // Continuations went out while the page before them was still being delivered. Sequential
      // paging never does that (zero, by construction: it reads each answer whole first). How many
      // do is not fixed: at most two pages are in flight, so a continuation may wait for the page
      // before last to be decoded, and the relay and the client share one event loop (on a loaded
      // machine 3 of 8 were seen, 5 of 8 idle).
      expect(relay.continues.length).toBeGreaterThan(5);
      expect(relay.continues.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
      relay.server.close();
      await plain.close();
    }
  });

  it('a listing that fails part way cancels its token on the server', async () => {
    const client = new VimClient(target, { secrets, keepaliveMs: 0 });
    try {
      await client.connect();
      await withContainerView(client, ['VirtualMachine', ...TREE_TYPES], async (view) => {
        const stop = new AbortController();
        const cancels = client.stats.byMethod.CancelRetrievePropertiesEx ?? 0;
        // Abort once the first continuation is on its way.
        const watch = setInterval(() => {
          if ((client.stats.byMethod.ContinueRetrievePropertiesEx ?? 0) > 0) stop.abort(new Error('caller gave up'));
        }, 0);
        try {
          await expect(retrieve(client, PROPS, viewSpec(view), { signal: stop.signal })).rejects.toThrow();
        } finally {
          clearInterval(watch);
        }
        expect(client.stats.byMethod.CancelRetrievePropertiesEx ?? 0).toBe(cancels + 1);
      });
    } finally {
      await client.close();
    }
  });
});
