// /v1/flrs: journal file-level restore. A mount is an FlrJournalMount task; browsing and download
// see the guest's files as they were at the checkpoint's time; the download link is served on
// this host (relative or absolute per fault), needs the bearer, and dies with the session.

import { randomUUID } from 'node:crypto';
import { browse, buildTree, packDownload } from './flr-fs.js';
import * as render from './render.js';
import type { LabZvmState } from './state.js';
import { HttpError, pick, pickString, route, sendBytes, sendJson, type Route } from './wire.js';

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
      if (vpg.recoverySite !== state.site.name) {
        throw new HttpError(400, `File level restore for VPG ${vpg.name} must be run at its recovery site ${vpg.recoverySite}`);
      }
      const row = state.vmRows().find((r) => r.vpg.id === vpg.id && r.vmIdentifier.toLowerCase() === vmId.toLowerCase());
      if (!row) throw new HttpError(400, `VM ${vmId} is not protected by VPG ${vpg.name}`);
      const cp = state.listedCheckpoints(vpg.id).find((c) => c.id === cpId);
      if (!cp) throw new HttpError(400, 'failed parsing as a valid CheckPoint Identifier');
      sendJson(res, 200, state.mount(vpg.id, row.vmIdentifier, cp, principal).id);
    }),
    route('GET', '/v1/flrs', ({ res, url }) => {
      const vm = url.searchParams.get('vmIdentifier');
      const list = state.liveSessions().filter((s) => vm === null || s.vmIdentifier.toLowerCase() === vm.toLowerCase());
      sendJson(res, 200, list.map((s) => render.flrSession(state, s)));
    }),
    route('GET', '/v1/flrs/:id', ({ res, params }) => {
      const s = state.session(params[0]!);
      if (!s) throw new HttpError(404, `FLR session ${params[0]} was not found`);
      const one = render.flrSession(state, s);
      sendJson(res, 200, state.faults.sessionShape === 'array' ? [one] : one);
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
      sendJson(res, 200, out);
    }),
    route('POST', '/v1/flrs/:id/download', ({ res, params, body }) => {
      const s = mounted(params[0]!);
      const list = pick(body, 'pathList');
      if (!Array.isArray(list) || list.length === 0 || !list.every((p) => typeof p === 'string')) throw new HttpError(400, 'pathList is required');
      const packed = packDownload(buildTree(state.guests, s.vmIdentifier, s.checkpoint.at), list as string[], state.faults.downloadFormat);
      if ('missing' in packed) throw new HttpError(400, `The path ${packed.missing} does not exist`);
      const id = `${state.site.siteIdentifier}.${randomUUID()}`;
      state.downloads.set(id, { id, sessionId: s.id, ...packed });
      const rel = `v1/downloads/${id}`;
      sendJson(res, 200, state.faults.downloadUrlForm === 'absolute' ? `${base()}/${rel}` : rel);
    }),
    route('GET', '/v1/downloads/:id', ({ res, params }) => {
      if (state.faults.failingDownloads > 0) {
        state.faults.failingDownloads--;
        throw new HttpError(500, 'An error occurred while preparing the download');
      }
      const d = state.downloads.get(params[0]!);
      if (!d) throw new HttpError(404, 'The download link has expired');
      sendBytes(res, d.bytes, d.fileName, d.contentType);
    }),
  ];
}
