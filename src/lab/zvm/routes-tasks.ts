// /v1 routes for tasks, the enum listings and the server clock: what the Exporter and the Zerto
// SDKs call besides the main loop (docs/zerto-notes.md-13). Task filters follow the Swagger's names;
// `status` takes the number or the name, as the Swagger says.

import * as render from './render.js';
import type { LabTask, LabZvmState } from './state.js';
import { HttpError, queryParam, route, sendJson, type Route } from './wire.js';

const TASK_TYPES: Array<LabTask['type']> = ['InsertTaggedCP', 'FlrJournalMount', 'FlrJournalUnmount', 'Clone', 'FailOverTest', 'StopFailOverTest'];
const TASK_STATES = ['', 'InProgress', 'WaitingForUserInput', 'Paused', 'Failed', 'Stopped', 'Completed', 'Cancelling'];
/** Indexed by the integer VPG Status the lab emits (docs/zerto-notes.md). */
export const VPG_STATUSES = ['Initializing', 'MeetingSLA', 'NotMeetingSLA', 'HistoryNotMeetingSLA', 'RpoNotMeetingSLA', 'FailingOver', 'Moving', 'Deleting', 'Recovered'];
/** INFERRED order: 0 VCenter and 3 AWS are documented; 5 is taken to be Azure (docs/zerto-notes.md), as render.ts emits. */
const ENTITY_TYPES = ['VCenter', 'VCD', 'HyperV', 'AWS', 'PublicCloud', 'Azure'];

export function taskRoutes(state: LabZvmState, base: () => string): Route[] {
  const find = (id: string) => state.tasks.get(id) ?? [...state.tasks.values()].find((x) => x.id.toLowerCase() === id.toLowerCase());
  return [
    route('GET', '/v1/tasks', ({ res, url }) => {
      const type = queryParam(url, 'type');
      const status = queryParam(url, 'status');
      const tasks = [...state.tasks.values()].filter((t) => {
        if (type !== null && t.type.toLowerCase() !== type.toLowerCase()) return false;
        if (status === null) return true;
        const s = state.taskView(t).state;
        return status === String(s) || status.toLowerCase() === TASK_STATES[s]!.toLowerCase();
      });
      sendJson(res, 200, tasks.map((t) => render.task(state, base(), t)));
    }),
    route('GET', '/v1/tasks/types', ({ res }) => sendJson(res, 200, TASK_TYPES)),
    route('GET', '/v1/tasks/:id', ({ res, params }) => {
      // The fault zvml-python-sdk works around: a valid token refused on this route.
      if (state.behaviour.takeTaskRouteRefusal()) throw new HttpError(401, 'Authorization has been denied for this request.');
      const t = find(params[0]!);
      if (!t || (t.type === 'FlrJournalUnmount' && state.behaviour.unmountTaskHidden)) throw new HttpError(404, `Task ${params[0]} was not found`);
      sendJson(res, 200, render.task(state, base(), t));
    }),
    route('GET', '/v1/vpgs/statuses', ({ res }) => sendJson(res, 200, VPG_STATUSES)),
    route('GET', '/v1/vpgs/entitytypes', ({ res }) => sendJson(res, 200, ENTITY_TYPES)),
    route('GET', '/v1/serverDateTime/serverDateTimeUtc', ({ res }) => sendJson(res, 200, new Date().toISOString())),
    // The lab runs in UTC, so local time is UTC with a zero offset.
    route('GET', '/v1/serverDateTime/serverDateTimeLocal', ({ res }) => sendJson(res, 200, new Date().toISOString().replace('Z', '+00:00'))),
  ];
}
