// /v1 routes for sites, VMs, VPGs, checkpoints and points in time. Filters follow the Swagger's
// query names; keys and values compare case-insensitively (queryParam), as ASP.NET binds them.

import { LAB_ZERTO_SITES, type LabVpg } from '../topology.js';
import * as render from './render.js';
import type { LabZvmState } from './state.js';
import { HttpError, pickString, queryParam, route, sendJson, type Route } from './wire.js';

export function protectionRoutes(state: LabZvmState, base: () => string): Route[] {
  const eq = (a: string | null, b: string): boolean => a === null || a.toLowerCase() === b.toLowerCase();
  const vpgOr404 = (id: string) => {
    const v = state.vpg(id);
    if (!v) throw new HttpError(404, `VPG with identifier ${id} was not found`);
    return v;
  };
  /** The (VM, VPG) row a per-VM route is about; vpgIdentifier is needed when the VM is in several (as /v1/vms/{id}; INFERRED for pointsInTime: docs/zerto-notes.md). */
  const vmRowOf = (vmId: string, url: URL) => {
    const vpgId = queryParam(url, 'vpgIdentifier');
    const rows = state.vmRows().filter((r) => eq(vmId, r.vmIdentifier) && eq(vpgId, r.vpg.id));
    if (rows.length === 0) throw new HttpError(404, `VM with identifier ${vmId} was not found`);
    if (rows.length > 1) throw new HttpError(400, 'VpgIdentifier is required when the VM is protected by more than one VPG');
    return rows[0]!;
  };
  const inRange = (v: LabVpg, url: URL) => {
    const start = dateParam(url, 'startDate');
    const end = dateParam(url, 'endDate');
    return state.listedCheckpoints(v.id).filter((c) => (start === null || Math.floor(c.at) >= start) && (end === null || Math.floor(c.at) <= end));
  };
  const peers = () => state.peers().map((p) => render.peerSite(p, base(), !state.behaviour.omitPeerSiteIdentifier));
  return [
    route('GET', '/v1/localsite', ({ res }) => sendJson(res, 200, render.localSite(state, base()))),
    route('GET', '/v1/peersites', ({ res, url }) => {
      const name = queryParam(url, 'peerName');
      sendJson(res, 200, peers().filter((p) => name === null || p.PeerSiteName === name));
    }),
    route('GET', '/v1/peersites/:id', ({ res, params }) => {
      const p = state.peers().find((s) => s.siteIdentifier.toLowerCase() === params[0]!.toLowerCase());
      if (!p) throw new HttpError(404, `Peer site with identifier ${params[0]} was not found`);
      sendJson(res, 200, render.peerSite(p, base(), !state.behaviour.omitPeerSiteIdentifier));
    }),
    route('GET', '/v1/vms', ({ res, url }) => {
      const q = (k: string): string | null => queryParam(url, k);
      const rows = state.vmRows().filter((r) => eq(q('vmName'), r.name) && eq(q('vmIdentifier'), r.vmIdentifier) && eq(q('vpgName'), r.vpg.name)
        && eq(q('protectedSiteIdentifier'), siteId(r.vpg.protectedSite)) && eq(q('recoverySiteIdentifier'), siteId(r.vpg.recoverySite)));
      const omit = state.behaviour.omittedVmMembers;
      const out = rows.map((r) => render.vmRow(state, base(), r)).map((o) => (omit.length ? Object.fromEntries(Object.entries(o).filter(([k]) => !omit.includes(k))) : o));
      // A row the Swagger allows (VmName nullable) and a strict client would choke on.
      if (state.behaviour.nullNameRows && out.length > 0) out.push({ ...out[0], VmIdentifier: `${String(out[0]!.VmIdentifier)}-unnamed`, VmName: null });
      sendJson(res, 200, out);
    }),
    route('GET', '/v1/vms/:id', ({ res, url, params }) => sendJson(res, 200, render.vmRow(state, base(), vmRowOf(params[0]!, url)))),
    route('GET', '/v1/vms/:id/pointsInTime', ({ res, url, params }) => {
      const row = vmRowOf(params[0]!, url);
      const refusal = state.flrRefusal(row.vpg);
      sendJson(res, 200, inRange(row.vpg, url).map((c) => ({
        Checkpoint: render.checkpoint(c), RetentionSet: null,
        CanMount: { IsAllowed: refusal === null, Reason: refusal },
      })));
    }),
    route('GET', '/v1/vms/:id/pointsInTime/stats', ({ res, url, params }) => sendJson(res, 200, stats(state.listedCheckpoints(vmRowOf(params[0]!, url).vpg.id)))),
    route('GET', '/v1/vpgs', ({ res, url }) => {
      const name = queryParam(url, 'name');
      const out = state.vpgs.filter((v) => eq(name, v.name)).map((v) => render.vpg(state, base(), v));
      if (state.behaviour.nullNameRows && out.length > 0 && name === null) out.push({ ...out[0], VpgIdentifier: 'aaaaaaaa-0000-4000-8000-0000000000ff', VpgName: null });
      sendJson(res, 200, out);
    }),
    route('GET', '/v1/vpgs/:id', ({ res, params }) => sendJson(res, 200, render.vpg(state, base(), vpgOr404(params[0]!)))),
    route('GET', '/v1/vpgs/:id/checkpoints', ({ res, url, params }) => sendJson(res, 200, inRange(vpgOr404(params[0]!), url).map(render.checkpoint))),
    route('GET', '/v1/vpgs/:id/checkpoints/stats', ({ res, params }) => sendJson(res, 200, stats(state.listedCheckpoints(vpgOr404(params[0]!).id)))),
    route('POST', '/v1/vpgs/:id/checkpoints', ({ res, params, body, principal }) => {
      const v = vpgOr404(params[0]!);
      const name = pickString(body, 'checkpointName');
      if (!name) throw new HttpError(400, 'checkpointName is required');
      const prot = state.peers().concat([state.site]).find((s) => s.name === v.protectedSite);
      // Unconfirmed either way: a switch, refusing by default with a 400 naming the public cloud.
      if (prot && prot.siteType !== 'VCenter' && state.behaviour.cloudTaggedCheckpoints === 'refuse') {
        throw new HttpError(400, `Tagged checkpoints are not supported for VPG ${v.name}: its protected site ${prot.name} is a public cloud site (${prot.siteType}).`);
      }
      sendJson(res, 200, state.insertTagged(v.id, name, principal).id);
    }),
  ];
}

/** `{Earliest, Latest}` as checkpoints/stats answers; pointsInTime/stats is taken to match (INFERRED: docs/zerto-notes.md). */
function stats(list: ReturnType<LabZvmState['listedCheckpoints']>): Record<string, unknown> {
  return { Earliest: list[0] ? render.checkpoint(list[0]) : null, Latest: list.at(-1) ? render.checkpoint(list.at(-1)!) : null };
}

function siteId(name: string): string {
  return LAB_SITE_IDS.get(name) ?? name;
}

const LAB_SITE_IDS = new Map(LAB_ZERTO_SITES.map((s) => [s.name, s.siteIdentifier]));

function dateParam(url: URL, name: string): number | null {
  const v = queryParam(url, name);
  if (v === null || v === '') return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new HttpError(400, `'${v}' is not a valid ${name}`);
  return t;
}
