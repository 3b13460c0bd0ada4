// /v1/vpgs/{id}/CloneStart, CloneAbort, FailoverTest and FailoverTestStop: the 10.0 U6 Swagger's
// routes and DTO members (CloneStartDataApi {checkpointId, datastoreIdentifier, vmIdentifiers},
// FailOverTestStartDataApi {checkpointIdentifier, vmIdentifiers}, StopFailoverTestDataApi
// {failoverTestSuccess, failoverTestSummary}); each start answers a task id. Body keys match
// case-insensitively, as for every route here. The refusal words are the lab's own: a real ZVM's
// wording for these is undocumented (docs/zerto-notes.md).

import type { LabVpg } from '../topology.js';
import type { LabCheckpoint } from './journal.js';
import type { LabRecoveries } from './recovery.js';
import type { LabZvmState } from './state.js';
import { HttpError, pick, pickString, route, sendJson, type Route, type RouteContext } from './wire.js';

export function recoveryRoutes(state: LabZvmState, recoveries: LabRecoveries): Route[] {
  const vpgOr404 = (id: string): LabVpg => {
    const v = state.vpg(id);
    if (!v) throw new HttpError(404, `VPG with identifier ${id} was not found`);
    return v;
  };
  /** The checkpoint asked for, or the latest when none is (both starts document that default). */
  const checkpointOf = (vpg: LabVpg, id: string | undefined): LabCheckpoint => {
    const listed = state.listedCheckpoints(vpg.id);
    const cp = id ? listed.find((c) => c.id === id) : listed.at(-1);
    if (!cp) throw new HttpError(400, id ? `Checkpoint ${id} does not exist in the journal of VPG ${vpg.name}` : `VPG ${vpg.name} has no checkpoint to recover to`);
    return cp;
  };
  const vmIdsOf = (vpg: LabVpg, body: unknown): string[] => {
    const raw = pick(body, 'vmIdentifiers');
    if (raw === undefined || raw === null) return [];
    if (!Array.isArray(raw)) throw new HttpError(400, 'vmIdentifiers must be an array of VM identifiers');
    // The 7.0 guide's example writes the items as objects with a VmIdentifier member.
    const ids = raw.map((x) => (typeof x === 'string' ? x : pickString(x, 'vmIdentifier') ?? ''));
    const known = state.vmRows().filter((r) => r.vpg.id === vpg.id).map((r) => r.vmIdentifier.toLowerCase());
    const stranger = ids.find((id) => !known.includes(id.toLowerCase()));
    if (stranger !== undefined) throw new HttpError(400, `VM ${stranger || '(empty)'} is not protected by VPG ${vpg.name}`);
    return ids;
  };
  const recorded = (ctx: RouteContext): void => {
    recoveries.requests.push({ route: ctx.route, body: ctx.body ?? null });
  };
  return [
    route('POST', '/v1/vpgs/:id/CloneStart', (ctx) => {
      recorded(ctx);
      const vpg = vpgOr404(ctx.params[0]!);
      if (recoveries.runningClone(vpg.id)) throw new HttpError(400, `A clone of VPG ${vpg.name} is already in progress`);
      if (recoveries.tests.has(vpg.id) && state.behaviour.cloneDuringTest === 'refuse') {
        throw new HttpError(400, `VPG ${vpg.name} cannot be cloned while a failover test is running`);
      }
      // 6.0's XML example names the member CheckpointIdentifier; the Swagger and the 7.0 JSON example checkpointId.
      const cp = checkpointOf(vpg, pickString(ctx.body, 'checkpointId') ?? pickString(ctx.body, 'checkpointIdentifier'));
      sendJson(ctx.res, 200, recoveries.startClone(vpg, cp, vmIdsOf(vpg, ctx.body), ctx.principal).id);
    }),
    route('POST', '/v1/vpgs/:id/CloneAbort', (ctx) => {
      recorded(ctx);
      const vpg = vpgOr404(ctx.params[0]!);
      if (!recoveries.abortClone(vpg.id)) throw new HttpError(400, `No clone of VPG ${vpg.name} is in progress`);
      // The Swagger documents a 200 without a body.
      ctx.res.writeHead(200, { 'content-length': 0 });
      ctx.res.end();
    }),
    route('POST', '/v1/vpgs/:id/FailoverTest', (ctx) => {
      recorded(ctx);
      const vpg = vpgOr404(ctx.params[0]!);
      if (recoveries.tests.has(vpg.id)) throw new HttpError(400, `VPG ${vpg.name} is already in a failover test`);
      const cp = checkpointOf(vpg, pickString(ctx.body, 'checkpointIdentifier'));
      sendJson(ctx.res, 200, recoveries.startTest(vpg, cp, vmIdsOf(vpg, ctx.body), ctx.principal).id);
    }),
    route('POST', '/v1/vpgs/:id/FailoverTestStop', (ctx) => {
      recorded(ctx);
      const vpg = vpgOr404(ctx.params[0]!);
      const task = recoveries.stopTest(vpg.id, ctx.principal);
      if (!task) throw new HttpError(400, `VPG ${vpg.name} is not in a failover test`);
      sendJson(ctx.res, 200, task.id);
    }),
  ];
}
