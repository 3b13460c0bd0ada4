// VsphereClient: the facade the MCP tools call for one target. Every method logs in on first use,
// takes `{signal?, operationId?}` (operationId travels as the SOAP operationID header, so pass the
// audit record id), and throws AppError only. Topic files hold the logic; this class only binds
// them to one connected VimClient. Tools never touch the wire (soap/) directly.

import type { CustomizationStatus } from './customization.js';
import { getCustomizationStatus } from './customization.js';
import { getClusterDetails, listClusters, type ClusterDetails, type ClusterRow } from './clusters.js';
import { getDatastoreDetails, listDatastores, type DatastoreDetails, type DatastoreRow } from './datastores.js';
import { queryEvents, type EventQuery, type EventResult } from './events.js';
import { findObjects, resolveOne, type Candidate, type ObjectKind } from './find.js';
import { getHostDetails, listHosts, type HostDetails, type HostRow } from './hosts.js';
import * as m from './mutations.js';
import { getVmPerformance, type PerfQuery, type VmPerformance } from './perf.js';
import * as snaps from './snapshots.js';
import type { CallOptions } from './soap/transport.js';
import { queryTasks, type TaskHistoryResult, type TaskQuery } from './task-history.js';
import { cancelTask, readTask, waitForTask, type TaskReading, type WaitOptions } from './tasks.js';
import type { TargetConfig } from './target-config.js';
import type { AboutInfo, MoRef } from './types.js';
import { VimClient, type VimClientOptions } from './vim-client.js';
import { getVmDetails, listVms, type VmDetails, type VmRow } from './vms.js';

export type { CallOptions, WaitOptions };
export type { VmRow, VmDetails, HostRow, HostDetails, ClusterRow, ClusterDetails, DatastoreRow, DatastoreDetails };
export type { EventQuery, EventResult, TaskQuery, TaskHistoryResult, CustomizationStatus, PerfQuery, VmPerformance };
export type { Candidate, ObjectKind };
export type { ReconfigureRequest, PlacementInput } from './mutations.js';
export type { SnapshotList } from './snapshots.js';
export type { TaskOutcome } from './tasks.js';

export class VsphereClient {
  readonly vim: VimClient;

  constructor(
    readonly target: TargetConfig,
    opts: VimClientOptions,
  ) {
    this.vim = new VimClient(target, opts);
  }

  /** Round trips so far (`roundTrips`, `byMethod`); tests assert listing costs with it. */
  get stats() {
    return this.vim.stats;
  }

  /** True once a session is established (and not known to be lost). */
  get connected(): boolean {
    return this.vim.session.connected;
  }

  /** Times the client logged in again after vSphere expired the session. */
  get relogins(): number {
    return this.vim.session.relogins;
  }

  private async ready(opts: CallOptions): Promise<VimClient> {
    await this.vim.connect(opts);
    return this.vim;
  }

  /** Logs in (if needed). */
  async connect(opts: CallOptions = {}): Promise<void> {
    await this.ready(opts);
  }

  async about(opts: CallOptions = {}): Promise<AboutInfo> {
    return (await this.ready(opts)).content.about;
  }

  // --- inventory -------------------------------------------------------------------------------
  async listVms(opts: CallOptions = {}): Promise<VmRow[]> {
    return listVms(await this.ready(opts), opts);
  }
  async getVmDetails(moid: string, opts: CallOptions = {}): Promise<VmDetails> {
    return getVmDetails(await this.ready(opts), moid, opts);
  }
  async listHosts(opts: CallOptions = {}): Promise<HostRow[]> {
    return listHosts(await this.ready(opts), opts);
  }
  async getHostDetails(moid: string, opts: CallOptions = {}): Promise<HostDetails> {
    return getHostDetails(await this.ready(opts), moid, opts);
  }
  async listClusters(opts: CallOptions = {}): Promise<ClusterRow[]> {
    return listClusters(await this.ready(opts), opts);
  }
  async getClusterDetails(moid: string, opts: CallOptions = {}): Promise<ClusterDetails> {
    return getClusterDetails(await this.ready(opts), moid, opts);
  }
  async listDatastores(opts: CallOptions = {}): Promise<DatastoreRow[]> {
    return listDatastores(await this.ready(opts), opts);
  }
  async getDatastoreDetails(moid: string, opts: CallOptions = {}): Promise<DatastoreDetails> {
    return getDatastoreDetails(await this.ready(opts), moid, opts);
  }
  /** Candidates whose moid or exact name matches; a string that is one object's moid and another's name yields both. */
  async find(kind: ObjectKind, nameOrMoid: string, opts: CallOptions = {}): Promise<Candidate[]> {
    return findObjects(await this.ready(opts), kind, nameOrMoid, opts);
  }
  /** Exactly one object, else AppError not_found / ambiguous_name (details.candidates). */
  async resolveOne(kind: ObjectKind, nameOrMoid: string, opts: CallOptions = {}): Promise<Candidate> {
    return resolveOne(await this.ready(opts), kind, nameOrMoid, opts);
  }

  // --- history, status, performance --------------------------------------------------------------
  async events(q: EventQuery, opts: CallOptions = {}): Promise<EventResult> {
    return queryEvents(await this.ready(opts), q, opts);
  }
  async tasks(q: TaskQuery, opts: CallOptions = {}): Promise<TaskHistoryResult> {
    return queryTasks(await this.ready(opts), q, opts);
  }
  async customizationStatus(vmMoid: string, opts: CallOptions & { since?: Date; maxScan?: number } = {}): Promise<CustomizationStatus> {
    return getCustomizationStatus(await this.ready(opts), vmMoid, opts);
  }
  async vmPerformance(vmMoid: string, q: PerfQuery = {}, opts: CallOptions = {}): Promise<VmPerformance> {
    return getVmPerformance(await this.ready(opts), vmMoid, q, opts);
  }
  async listSnapshots(vmMoid: string, opts: CallOptions = {}): Promise<snaps.SnapshotList> {
    return snaps.listSnapshots(await this.ready(opts), vmMoid, opts);
  }

  // --- mutations (each waits for its task; progress through opts.onProgress) --------------------
  async powerOn(vmMoid: string, opts: WaitOptions = {}) {
    return m.powerOn(await this.ready(opts), vmMoid, opts);
  }
  async powerOff(vmMoid: string, opts: WaitOptions = {}) {
    return m.powerOff(await this.ready(opts), vmMoid, opts);
  }
  async shutdownGuest(vmMoid: string, opts: CallOptions = {}): Promise<void> {
    return m.shutdownGuest(await this.ready(opts), vmMoid, opts);
  }
  async powerState(vmMoid: string, opts: CallOptions = {}): Promise<string | null> {
    return m.powerState(await this.ready(opts), vmMoid, opts);
  }
  async suspend(vmMoid: string, opts: WaitOptions = {}) {
    return m.suspend(await this.ready(opts), vmMoid, opts);
  }
  async reset(vmMoid: string, opts: WaitOptions = {}) {
    return m.reset(await this.ready(opts), vmMoid, opts);
  }
  async createSnapshot(vmMoid: string, args: { name: string; description?: string; memory?: boolean; quiesce?: boolean }, opts: WaitOptions = {}) {
    return snaps.createSnapshot(await this.ready(opts), vmMoid, args, opts);
  }
  async removeSnapshot(snapshotMoid: string, args: { removeChildren: boolean; consolidate?: boolean }, opts: WaitOptions = {}) {
    return snaps.removeSnapshot(await this.ready(opts), snapshotMoid, args, opts);
  }
  async revertToSnapshot(snapshotMoid: string, args: { suppressPowerOn?: boolean } = {}, opts: WaitOptions = {}) {
    return snaps.revertToSnapshot(await this.ready(opts), snapshotMoid, args, opts);
  }
  async revertToCurrentSnapshot(vmMoid: string, opts: WaitOptions = {}) {
    return snaps.revertToCurrentSnapshot(await this.ready(opts), vmMoid, opts);
  }
  async removeAllSnapshots(vmMoid: string, opts: WaitOptions = {}) {
    return snaps.removeAllSnapshots(await this.ready(opts), vmMoid, opts);
  }
  async reconfigure(vmMoid: string, requests: m.ReconfigureRequest[], opts: WaitOptions = {}) {
    return m.reconfigure(await this.ready(opts), vmMoid, requests, opts);
  }
  async relocate(vmMoid: string, to: m.PlacementInput, opts: WaitOptions = {}) {
    return m.relocate(await this.ready(opts), vmMoid, to, opts);
  }
  async clone(vmMoid: string, args: { name: string; powerOn?: boolean; template?: boolean } & m.PlacementInput, opts: WaitOptions = {}) {
    return m.clone(await this.ready(opts), vmMoid, args, opts);
  }
  async destroy(vmMoid: string, opts: WaitOptions = {}) {
    return m.destroy(await this.ready(opts), vmMoid, opts);
  }
  async unregister(vmMoid: string, opts: CallOptions = {}): Promise<void> {
    return m.unregister(await this.ready(opts), vmMoid, opts);
  }
  /** Waits on any task this target returned. */
  async waitForTask(task: MoRef, opts: WaitOptions = {}): Promise<unknown> {
    return waitForTask(await this.ready(opts), task, opts);
  }

  /** One look at a task by its moid (a change followed across a restart). */
  async readTask(taskMoid: string, opts: CallOptions = {}): Promise<TaskReading> {
    return readTask(await this.ready(opts), taskMoid, opts);
  }
  /** CancelTask; `not_cancellable` / `already_finished` when vCenter refuses. */
  async cancelTask(taskMoid: string, opts: CallOptions = {}): Promise<'requested' | 'not_cancellable' | 'already_finished'> {
    return cancelTask(await this.ready(opts), taskMoid, opts);
  }

  /** Logs out (best effort) and closes the sockets. */
  async close(): Promise<void> {
    await this.vim.close();
  }
}
