// /v1/flrs: journal file-level restore. A mount is an FlrJournalMount task; browsing and download
// see the guest's files as they were at the checkpoint's time, browse one page at a time; the
// download link is served on this host (relative, or absolute under this or another host name),
// needs the bearer, and dies with the session. Which ZVM of a site pair mounts FLR for a VPG that
// replicates between them is a switch (state.flrRefusal), since the evidence is split (docs/zerto-notes.md).

import { randomUUID } from 'node:crypto';
import { browse, buildTree, packDownload } from './flr-fs.js';
import * as render from './render.js';
import type { LabZvmState } from './state.js';
import { HttpError, pick, pickString, queryParam, route, sendBytes, sendJson, type Route } from './wire.js';

export function flrRoutes(state: LabZvmState, base: () => string): Route[] {
  const mounted = (id: string) => {
    const s = state.session(id);
    if (!s) throw new HttpError(404, `FLR session ${id} was not found`);
    if (state.sessionStatus(s) !== 'MountCompletedSuccessfully') throw new HttpError(400, `FLR session ${id} is not mounted (${state.sessionStatus(s)})`);
    return s;
  };
  return [
    route('POST', '/v1/flrs', ({ res, body, principal }) => {
      const jflr = pick(body, 'jflr');
      if (!jflr || typeof jflr !== 'object') throw new HttpError(400, 'Only journal FLR (jflr) is supported by this ZVM');
      const vpgId = pickString(jflr, 'vpgIdentifier') ?? '';
      const vmId = pickString(jflr, 'vmIdentifier') ?? '';
      const cpId = pickString(jflr, 'checkpointIdentifier') ?? '';
      const vpg = state.vpg(vpgId);
      if (!vpg) throw new HttpError(404, `VPG with identifier ${vpgId} was not found`);
      const refusal = state.flrRefusal(vpg);
      if (refusal) throw new HttpError(400, refusal);
      const row = state.vmRows().find((r) => r.vpg.id === vpg.id && r.vmIdentifier.toLowerCase() === vmId.toLowerCase());
      if (!row) throw new HttpError(400, `VM ${vmId} is not protected by VPG ${vpg.name}`);
      const cp = state.listedCheckpoints(vpg.id).find((c) => c.id === cpId);
      if (!cp) throw new HttpError(400, 'failed parsing as a valid CheckPoint Identifier');
      sendJson(res, 200, state.mount(vpg.id, row.vmIdentifier, cp, principal).id);
    }),
    route('GET', '/v1/flrs', ({ res, url }) => {
      const vm = queryParam(url, 'vmIdentifier');
      const list = state.liveSessions().filter((s) => vm === null || s.vmIdentifier.toLowerCase() === vm.toLowerCase());
      sendJson(res, 200, list.map((s) => render.flrSession(state, s)));
    }),
    route('GET', '/v1/flrs/:id', ({ res, params }) => {
      const s = state.session(params[0]!);
      if (s && Date.now() - s.createdAt < state.behaviour.sessionListedAfterMs) throw new HttpError(404, `FLR session ${params[0]} was not found`);
      if (!s) throw new HttpError(404, `FLR session ${params[0]} was not found`);
      const one = render.flrSession(state, s);
      sendJson(res, 200, state.behaviour.sessionShape === 'array' ? [one] : one);
    }),
    route('DELETE', '/v1/flrs/:id', ({ res, params, principal }) => {
      const s = state.session(params[0]!);
      if (!s) throw new HttpError(404, `FLR session ${params[0]} was not found`);
      if (s.unmountTaskId) return sendJson(res, 200, s.unmountTaskId);
      sendJson(res, 200, state.unmount(s, principal).id);
    }),
    route('POST', '/v1/flrs/:id/browse', ({ res, params, body }) => {
      const s = mounted(params[0]!);
      const path = pickString(body, 'path') ?? '';
      if (path.includes('\\')) throw new HttpError(400, 'Backslash is not supported in a path; use /');
      const out = browse(buildTree(state.guests, s.vmIdentifier, s.checkpoint.at), path);
      if (!out) throw new HttpError(400, `The path ${path} does not exist`);
      // The page base is a switch (1: 0 or none reads as 1; 0: none reads as 0); no page size asked
      // for means the default, and a larger size is capped, so a client reads on until a page is short.
      const b = state.behaviour;
      const size = Math.min(positive(pick(body, 'pageSize')) ?? b.browseDefaultPageSize, b.browseMaxPageSize);
      const asked = pick(body, 'pageNumber');
      const index = b.browsePageBase === 0 ? (asked === 0 ? 0 : (positive(asked) ?? 0)) : (positive(asked) ?? 1) - 1;
      const items = out.PathItems as unknown[];
      const main = b.looseShapes && out.MainPathItem ? { ...out.MainPathItem, Path: null } : out.MainPathItem;
      sendJson(res, 200, { ...out, MainPathItem: main, PathItems: items.slice(index * size, (index + 1) * size) });
    }),
    route('POST', '/v1/flrs/:id/download', ({ res, params, body }) => {
      const s = mounted(params[0]!);
      const list = pick(body, 'pathList');
      if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'string')) throw new HttpError(400, 'pathList is required');
      const packed = packDownload(buildTree(state.guests, s.vmIdentifier, s.checkpoint.at), list as string[], state.behaviour.downloadFormat);
      if ('missing' in packed) throw new HttpError(400, `The path ${packed.missing} does not exist`);
      const id = `${state.site.siteIdentifier}.${randomUUID()}`;
      state.downloads.set(id, { id, sessionId: s.id, ...packed });
      const rel = `v1/downloads/${id}`;
      const b = state.behaviour;
      sendJson(res, 200, b.downloadUrlForm === 'absolute' ? `${b.downloadLinkOrigin ?? base()}/${rel}` : rel);
    }),
    route('GET', '/v1/downloads/:id', ({ res, params }) => {
      if (state.behaviour.failingDownloads > 0) {
        state.behaviour.failingDownloads--;
        throw new HttpError(500, 'An error occurred while preparing the download');
      }
      const d = state.downloads.get(params[0]!);
      if (!d) throw new HttpError(404, 'The download link has expired');
      sendBytes(res, d.bytes, d.fileName, d.contentType);
    }),
  ];
}

function positive(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
