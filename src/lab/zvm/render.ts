// The simulated ZVM's JSON, shaped like a 10.x appliance's (docs/zerto-notes.md):
// PascalCase members, lower-case keys inside link objects, integer enums, ISO dates with
// milliseconds and `Z`.

import { LAB_ZERTO_SITES, type LabVpg, type LabZertoSite } from '../topology.js';
import type { LabCheckpoint, LabFlrSession, LabTask, LabVmRef, LabZvmState } from './state.js';

const TASK_STATE_NAMES = ['FirstUnusedValue', 'InProgress', 'WaitingForUserInput', 'Paused', 'Failed', 'Stopped', 'Completed', 'Cancelling'];

export function isoTime(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

function site(name: string): LabZertoSite {
  return LAB_ZERTO_SITES.find((s) => s.name === name)!;
}

/** 0 vCenter, 3 AWS, 5 taken to be Azure (inferred: docs/zerto-notes.md). */
function entityType(s: LabZertoSite): number {
  return s.siteType === 'Azure' ? 5 : s.siteType === 'Aws' ? 3 : 0;
}

export function siteLink(state: LabZvmState, base: string, name: string): Record<string, unknown> {
  const s = site(name);
  const local = s.name === state.site.name;
  return {
    href: local ? `${base}/v1/localsite` : `${base}/v1/peersites/${s.siteIdentifier}`,
    identifier: s.siteIdentifier, rel: null, type: local ? 'LocalSiteApi' : 'PeerSiteApi',
  };
}

export function localSite(state: LabZvmState, base: string): Record<string, unknown> {
  const s = state.site;
  return {
    SiteIdentifier: s.siteIdentifier, SiteName: state.behaviour.looseShapes ? null : s.name, Location: 'Lab', Version: '10.0.60', DisplayVersion: '10.0 U6',
    ZvmApiVersion: '1.0', ContactName: 'lab', ContactEmail: 'lab@example.test', ContactPhone: '000',
    IsReplicationToSelfEnabled: true, UtcOffsetInMinutes: 0, SiteType: s.siteType, SiteTypeVersion: null,
    IpAddress: '127.0.0.1', BandwidthThrottlingInMBs: -1, IsLoginBannerEnabled: false, LoginBanner: null,
    Link: { href: `${base}/v1/localsite`, identifier: s.siteIdentifier, rel: null, type: 'LocalSiteApi' },
  };
}

/** `withId` false drops `SiteIdentifier`, as the Swagger's PeerSiteApi does (only Link.identifier). */
export function peerSite(s: LabZertoSite, base: string, withId = true): Record<string, unknown> {
  return {
    ...(withId ? { SiteIdentifier: s.siteIdentifier } : {}), PeerSiteName: s.name, PairingStatus: 0, Location: 'Lab',
    HostName: `zvm.${s.name}.lab.local`, Port: 9071, ProvisionedStorage: 0, UsedStorage: 0,
    IncomingThroughputInMb: 0, OutgoingBandWidth: 0, Version: '10.0.60', SiteType: s.siteType, RegionName: s.siteType === 'Azure' ? 'westeurope' : null,
    Link: { href: `${base}/v1/peersites/${s.siteIdentifier}`, identifier: s.siteIdentifier, rel: null, type: 'PeerSiteApi' },
  };
}

export function vpg(state: LabZvmState, base: string, v: LabVpg): Record<string, unknown> {
  const cps = state.listedCheckpoints(v.id);
  const earliest = cps[0];
  const historyMinutes = Math.max(1, Math.round(state.journal.history(v.id) / 60_000));
  const actualMinutes = earliest ? Math.floor((Date.now() - earliest.at) / 60_000) : 0;
  const stage = state.recoveries.testStage(v.id);
  return {
    VpgIdentifier: v.id, VpgName: v.name, VpgDescription: null, VpgType: 'Regular',
    Status: 1, StatusDescription: 'Meeting SLA', SubStatus: 0, SubStatusDescription: 'None',
    Priority: 1, VmsCount: v.vms.length, ActualRPO: 5, ConfiguredRpoSeconds: 300, AlertStatus: 0,
    Entities: { Protected: entityType(site(v.protectedSite)), Recovery: entityType(site(v.recoverySite)) },
    ProtectedSite: siteLink(state, base, v.protectedSite), RecoverySite: siteLink(state, base, v.recoverySite),
    ProtectedSiteName: v.protectedSite, RecoverySiteName: v.recoverySite,
    // ZertoApiWrapper's captured VPG shows `"RunningFailOverTestApi": null` when no test runs.
    ActiveProcessesApi: { RunningFailOverTestApi: stage === null ? null : { Stage: stage } },
    HistoryStatusApi: { ActualHistoryInMinutes: actualMinutes, ConfiguredHistoryInMinutes: historyMinutes, EarliestCheckpoint: earliest ? checkpoint(earliest) : null },
    Link: { href: `${base}/v1/vpgs/${v.id}`, identifier: v.id, rel: null, type: 'VpgApi' },
  };
}

export function vmRow(state: LabZvmState, base: string, r: LabVmRef): Record<string, unknown> {
  const v = r.vpg;
  const linkId = `${r.vmIdentifier}?VpgIdentifier=${v.id}`;
  return {
    VmIdentifier: r.vmIdentifier, VmName: r.name, VpgIdentifier: v.id, VpgName: v.name,
    ProtectedSite: siteLink(state, base, v.protectedSite), RecoverySite: siteLink(state, base, v.recoverySite),
    ProtectedSiteName: v.protectedSite, RecoverySiteName: v.recoverySite,
    Status: 1, SubStatus: 0, Priority: 1, ActualRPO: 5,
    Entities: { Protected: entityType(site(v.protectedSite)), Recovery: entityType(site(v.recoverySite)) },
    EnabledActions: { IsFlrEnabled: true },
    Volumes: [{ VmVolumeIdentifier: 'scsi:0:0', PublicCloudVolumeIdentifier: null }],
    Link: { href: `${base}/v1/vms/${linkId}`, identifier: linkId, rel: null, type: 'VmApi' },
  };
}

export function checkpoint(c: LabCheckpoint): Record<string, unknown> {
  return { CheckpointIdentifier: c.id, TimeStamp: isoTime(c.at), Tag: c.tag, Type: c.type };
}

export function task(state: LabZvmState, base: string, t: LabTask): Record<string, unknown> {
  const v = state.taskView(t);
  const related = (kind: string, id: string | undefined): Array<Record<string, unknown>> =>
    id ? [{ href: `${base}/v1/${kind}/${id}`, identifier: id, rel: null, type: kind === 'vpgs' ? 'VpgApi' : 'FlrSessionInformationApi' }] : [];
  return {
    TaskIdentifier: t.id, Type: t.type, Status: { State: state.behaviour.looseShapes ? TASK_STATE_NAMES[v.state] : v.state, Progress: v.progress },
    InitiatedBy: t.initiatedBy, Started: isoTime(t.started), Completed: v.completed === null ? null : isoTime(v.completed),
    CompleteReason: v.state === 4 ? (t.failReason ?? '') : v.state === 5 ? 'Aborted by user' : '', IsCancellable: t.type === 'Clone' && v.state === 1, Generation: 1,
    RelatedEntities: { Vpgs: related('vpgs', t.vpgId), Sites: [siteLink(state, base, state.site.name)], Hosts: [], FlrSessions: related('flrs', t.flrSessionId) },
    Link: { href: `${base}/v1/tasks/${t.id}`, identifier: t.id, rel: null, type: 'TaskApi' },
  };
}

export function flrSession(state: LabZvmState, s: LabFlrSession): Record<string, unknown> {
  return {
    FlrSessionIdentifier: s.id, FlrSessionStatus: reportedStatus(state, s), FlrSessionType: 'jflr',
    VmIdentifier: s.vmIdentifier, VmVolumeIdentifier: null, VpgIdentifier: s.vpgId,
    CheckpointIdentifier: s.checkpoint.id, MountTime: isoTime(s.createdAt), SelectedPath: null,
    NumberOfRelatedRunningTasks: 0, RepositoryIdentifier: null, RetentionSetIdentifier: null,
    SiteIdentifier: state.site.siteIdentifier,
  };
}

/** The status word a client sees: the lab's own, or the unknown word a test put in its place. */
function reportedStatus(state: LabZvmState, s: LabFlrSession): string | number {
  const own = state.sessionStatus(s) ?? 'Unmounted';
  const word = state.behaviour.mountedStatusWord;
  return own === 'MountCompletedSuccessfully' && word !== null ? word : own;
}
