// Guest customization status of a VM, folded from two sources: `guest.customizationInfo` (only
// from vSphere API 7.0.2; an older vCenter faults the WHOLE request on an unknown path, so the path
// is chosen by about.apiVersion) and the Customization* events of the VM.

import { queryEvents, type EventRow } from './events.js';
import { retrieveOne } from './property-collector.js';
import type { CallOptions } from './soap/transport.js';
import { asString, compareApiVersion, moRef, type VimObject } from './types.js';
import type { VimClient } from './vim-client.js';
import { AppError } from '../core/errors.js';

export const CUSTOMIZATION_EVENTS = [
  'CustomizationStartedEvent',
  'CustomizationSucceeded',
  'CustomizationFailed',
  'CustomizationUnknownFailure',
  'CustomizationSysprepFailed',
  'CustomizationLinuxIdentityFailed',
  'CustomizationNetworkSetupFailed',
];

export interface CustomizationStatus {
  vm: { name: string; moid: string };
  /** not_started | running | succeeded | failed */
  state: 'not_started' | 'running' | 'succeeded' | 'failed';
  finished: boolean;
  succeeded: boolean;
  message: string | null;
  started_at: string | null;
  finished_at: string | null;
  /** Raw `guest.customizationInfo` fields when the API has them (7.0.2+). */
  guest_info: { status: string | null; error: string | null; start_time: string | null; end_time: string | null } | null;
  /** Which sources were consulted. */
  sources: Array<'guest.customizationInfo' | 'events'>;
  events: EventRow[];
}

export function supportsCustomizationInfo(apiVersion: string): boolean {
  return compareApiVersion(apiVersion, '7.0.2') >= 0;
}

export async function getCustomizationStatus(
  client: VimClient,
  vmMoid: string,
  opts: CallOptions & { since?: Date; maxScan?: number } = {},
): Promise<CustomizationStatus> {
  const ref = moRef('VirtualMachine', vmMoid);
  const withInfo = supportsCustomizationInfo(client.about?.apiVersion ?? '0');
  const paths = withInfo ? ['name', 'guest.customizationInfo'] : ['name'];
  const [oc, ev] = await Promise.all([
    retrieveOne(client, ref, paths, opts),
    queryEvents(client, { entity: ref, eventTypes: CUSTOMIZATION_EVENTS, since: opts.since, maxScan: opts.maxScan ?? 2000, limit: 50 }, opts),
  ]);
  if (!oc) throw new AppError('not_found', `No VM with moid ${vmMoid} on '${client.target.name}'`);
  const sources: CustomizationStatus['sources'] = ['events'];
  let guest: CustomizationStatus['guest_info'] = null;
  const info = oc.props['guest.customizationInfo'] as VimObject | undefined;
  if (withInfo && info && typeof info === 'object') {
    sources.unshift('guest.customizationInfo');
    guest = {
      status: asString(info.customizationStatus) ?? null,
      error: asString(info.errorMsg) || null,
      start_time: asString(info.startTime) ?? null,
      end_time: asString(info.endTime) ?? null,
    };
  }
  const events = ev.events; // newest first
  const latest = events[0];
  const { state, message } = foldCustomization(guest, latest);
  const started = events.find((e) => e.type === 'CustomizationStartedEvent');
  const finishedEvent = events.find((e) => e.type !== 'CustomizationStartedEvent');
  return {
    vm: { name: asString(oc.props.name) ?? vmMoid, moid: vmMoid },
    state,
    finished: state === 'succeeded' || state === 'failed',
    succeeded: state === 'succeeded',
    message,
    started_at: guest?.start_time ?? started?.created_at ?? null,
    finished_at: guest?.end_time ?? (state === 'succeeded' || state === 'failed' ? (finishedEvent?.created_at ?? null) : null),
    guest_info: guest,
    sources,
    events,
  };
}

/** The guest info's status as a state; undefined when it says nothing (IDLE, unset, unknown). */
function guestState(status: string | null | undefined): CustomizationStatus['state'] | undefined {
  const s = status?.toUpperCase() ?? '';
  if (s.endsWith('SUCCEEDED')) return 'succeeded';
  if (s.endsWith('FAILED')) return 'failed';
  if (s.endsWith('RUNNING') || s.endsWith('PENDING')) return 'running';
  return undefined;
}

/**
 * Folds both sources: a failure can land in either depending on how far it got, and the guest
 * info can be stale (IDLE, or SUCCEEDED from an earlier run). The newer source decides.
 */
export function foldCustomization(
  guest: CustomizationStatus['guest_info'],
  latest: { type: string; created_at: string; message: string | null } | undefined,
): { state: CustomizationStatus['state']; message: string | null } {
  const fromGuest = guestState(guest?.status);
  const fromEvents: CustomizationStatus['state'] | undefined = latest
    ? latest.type === 'CustomizationSucceeded' ? 'succeeded' : latest.type === 'CustomizationStartedEvent' ? 'running' : 'failed'
    : undefined;
  const guestTime = Date.parse(guest?.end_time ?? guest?.start_time ?? '') || 0;
  const eventTime = latest ? Date.parse(latest.created_at) || 0 : 0;
  if (fromGuest && (!fromEvents || guestTime >= eventTime)) return { state: fromGuest, message: guest!.error };
  if (fromEvents) return { state: fromEvents, message: latest!.message };
  return { state: 'not_started', message: null };
}
