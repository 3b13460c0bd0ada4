// /v1 routes for sites, VMs, VPGs, checkpoints and tasks. Filters follow the Swagger's query names
// and compare case-insensitively, as the old docs say the real ones do.

import { LAB_ZERTO_SITES } from '../topology.js';
import * as render from './render.js';
import type { LabZvmState } from './state.js';
import { HttpError, pickString, route, sendJson, type Route } from './wire.js';

export function protectionRoutes(state: LabZvmState, base: () => string): Route[] {
  const eq = (a: string | null, b: string): boolean => a === null || a.toLowerCase() === b.toLowerCase();
  const vpgOr404 = (id: string) => {
    const v = state.vpg(id);
    if (!v) throw new HttpError(404, `VPG with identifier ${id} was not found`);
    return v;
  };
  return [
    route('GET', '/v1/localsite', ({ res }) => sendJson(res, 200, render.localSite(state, base()))),
    route('GET', '/v1/peersites', ({ res, url }) => {
      const name = url.searchParams.get('peerName');
      sendJson(res, 200, state.peers().filter((p) => name === null || p.name === name).map((p) => render.peerSite(p, base())));
    }),
    route('GET', '/v1/serverDateTime/serverDateTimeUtc', ({ res }) => sendJson(res, 200, new Date().toISOString())),
    route('GET', '/v1/vms', ({ res, url }) => {
      const q = (k: string): string | null => url.searchParams.get(k);
      const rows = state.vmRows().filter((r) => eq(q('vmName'), r.name) && eq(q('vmIdentifier'), r.vmIdentifier) && eq(q('vpgName'), r.vpg.name)
        && eq(q('protectedSiteIdentifier'), siteId(r.vpg.protectedSite)) && eq(q('recoverySiteIdentifier'), siteId(r.vpg.recoverySite)));
      sendJson(res, 200, rows.map((r) => render.vmRow(state, base(), r)));
    }),
    route('GET', '/v1/vms/:id', ({ res, url, params }) => {
      const vpgId = url.searchParams.get('vpgIdentifier');
      const rows = state.vmRows().filter((r) => eq(params[0]!, r.vmIdentifier) && eq(vpgId, r.vpg.id));
      if (rows.length === 0) throw new HttpError(404, `VM with identifier ${params[0]} was not found`);
      if (rows.length > 1) throw new HttpError(400, 'VpgIdentifier is required when the VM is protected by more than one VPG');
      sendJson(res, 200, render.vmRow(state, base(), rows[0]!));
    }),
    route('GET', '/v1/vpgs', ({ res, url }) => {
      const name = url.searchParams.get('name');
      sendJson(res, 200, state.vpgs.filter((v) => eq(name, v.name)).map((v) => render.vpg(state, base(), v)));
    }),
    route('GET', '/v1/vpgs/:id', ({ res, params }) => sendJson(res, 200, render.vpg(state, base(), vpgOr404(params[0]!)))),
    route('GET', '/v1/vpgs/:id/checkpoints', ({ res, url, params }) => {
      const v = vpgOr404(params[0]!);
      const start = dateParam(url, 'startDate');
      const end = dateParam(url, 'endDate');
      const list = state.listedCheckpoints(v.id).filter((c) => (start === null || Math.floor(c.at) >= start) && (end === null || Math.floor(c.at) <= end));
      sendJson(res, 200, list.map(render.checkpoint));
    }),
    route('GET', '/v1/vpgs/:id/checkpoints/stats', ({ res, params }) => {
      const list = state.listedCheckpoints(vpgOr404(params[0]!).id);
      sendJson(res, 200, { Earliest: list[0] ? render.checkpoint(list[0]) : null, Latest: list.at(-1) ? render.checkpoint(list.at(-1)!) : null });
    }),
    route('POST', '/v1/vpgs/:id/checkpoints', ({ res, params, body, principal }) => {
      const v = vpgOr404(params[0]!);
      const name = pickString(body, 'checkpointName');
      if (!name) throw new HttpError(400, 'checkpointName is required');
      const prot = state.peers().concat([state.site]).find((s) => s.name === v.protectedSite);
      // Q3 (unconfirmed): modelled as a 400 naming the public cloud, like other invalid operations.
      if (prot && prot.siteType !== 'VCenter') {
        throw new HttpError(400, `Tagged checkpoints are not supported for VPG ${v.name}: its protected site ${prot.name} is a public cloud site (${prot.siteType}).`);
      }
      sendJson(res, 200, state.insertTagged(v.id, name, principal).id);
    }),
    route('GET', '/v1/tasks', ({ res }) => sendJson(res, 200, [...state.tasks.values()].map((t) => render.task(state, base(), t)))),
    route('GET', '/v1/tasks/:id', ({ res, params }) => {
      const t = state.tasks.get(params[0]!) ?? [...state.tasks.values()].find((x) => x.id.toLowerCase() === params[0]!.toLowerCase());
      if (!t) throw new HttpError(404, `Task ${params[0]} was not found`);
      sendJson(res, 200, render.task(state, base(), t));
    }),
  ];
}

function siteId(name: string): string {
  return LAB_SITE_IDS.get(name) ?? name;
}

const LAB_SITE_IDS = new Map(LAB_ZERTO_SITES.map((s) => [s.name, s.siteIdentifier]));

function dateParam(url: URL, name: string): number | null {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new HttpError(400, `'${v}' is not a valid ${name}`);
  return t;
}
