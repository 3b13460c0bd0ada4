// The simulated vCenter: a vim25 SOAP endpoint on 127.0.0.1 built from the lab topology. It is
// both the `--lab` product feature and the test fake for everything that talks to vSphere, so it
// speaks vCenter's wire protocol (not vcsim's), pages like vCenter, and faults like vCenter.

import type { LabCallLog } from '../call-log.js';
import type { LabVcenter } from '../topology.js';
import type { Lab } from './context.js';
import { serveLab, type LabHttpServer } from './http-server.js';
import { registerRecoveredVm, removeRecoveredVm, type RecoveredVmSpec } from './recovered-vms.js';
import { createLab } from './service.js';

/**
 * What the test-only knobs (testing/index.ts: fault injection, inspection) attach to. `--lab`
 * never reads it; the knobs and their modules are not part of the shipped lab.
 */
export const LAB_INTERNALS: unique symbol = Symbol('lab vCenter internals');

export interface LabInternals {
  lab: Lab;
  server: LabHttpServer;
  roundTrips(): number;
}

export interface LabVcenterOptions {
  vcenter: LabVcenter;
  /** Overrides `vcenter.fillerVms` (benchmarks ask for 10_000). */
  fillerVms?: number;
  /** Default true: https with the lab certificate (src/lab/tls, signed by lab-ca.pem). */
  tls?: boolean;
  /** Login accepts exactly these; anything else is InvalidLogin. */
  credentials: { user: string; password: string };
  callLog?: LabCallLog;
  /** RetrievePropertiesEx page cap, whatever maxObjects asks for. Default 100. */
  pageSize?: number;
  /** `about.apiVersion`. Default '8.0.2.0'. Below 7.0.2, `guest.customizationInfo` is InvalidProperty. */
  apiVersion?: string;
  /**
   * How long a task runs (ms), or a function for jitter. Default: 50-150 ms, so `running` with
   * progress is observable. ShutdownGuest/RebootGuest take effect after the same delay.
   */
  taskMs?: number | (() => number);
}

export interface LabVcenterHandle {
  /** `https://127.0.0.1:<port>/sdk` */
  url: string;
  port: number;
  /** Where a simulated ZVM puts the VMs it recovers from a journal (clones, test VMs). */
  readonly recovered: { register(spec: RecoveredVmSpec): string; remove(moid: string): boolean };
  close(): Promise<void>;
  readonly [LAB_INTERNALS]: LabInternals;
}

/** Directory of the lab TLS files, from src/lab/vcenter or dist/lab/vcenter alike. */
const TLS_DIR = new URL('../tls/', import.meta.url);

export async function startLabVcenter(options: LabVcenterOptions): Promise<LabVcenterHandle> {
  const apiVersion = options.apiVersion ?? '8.0.2.0';
  const taskMs = typeof options.taskMs === 'function'
    ? options.taskMs
    : options.taskMs !== undefined
      ? ((ms: number) => () => ms)(options.taskMs)
      : () => 50 + Math.floor(Math.random() * 100);
  const timers = new Set<NodeJS.Timeout>();
  const lab = createLab({
    vcenter: options.vcenter,
    fillerVms: options.fillerVms ?? options.vcenter.fillerVms,
    credentials: options.credentials,
    pageSize: options.pageSize ?? 100,
    apiVersion,
    taskMs,
  }, timers);
  let roundTrips = 0;
  const server = await serveLab(lab, {
    tls: options.tls ?? true,
    certFile: new URL('lab-server.pem', TLS_DIR),
    keyFile: new URL('lab-server-key.pem', TLS_DIR),
    callLog: options.callLog,
    apiVersion,
    onRoundTrip: () => {
      roundTrips++;
    },
  });
  return {
    url: server.url,
    port: server.port,
    recovered: { register: (spec) => registerRecoveredVm(lab, spec), remove: (moid) => removeRecoveredVm(lab, moid) },
    [LAB_INTERNALS]: { lab, server, roundTrips: () => roundTrips },
    close: async () => {
      lab.tasks.close();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.releaseHung();
      await server.close();
    },
  };
}
