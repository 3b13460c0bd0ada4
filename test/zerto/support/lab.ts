// Test fixture: simulated ZVMs on real sockets (TLS signed by the lab CA, verified by the client)
// and ZvmClients pointed at them. No HTTP mocking anywhere: the client speaks to the fake over TCP.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envSecretSource, type SecretSource } from '../../../src/core/secrets.js';
import { LabCallLog } from '../../../src/lab/call-log.js';
import { GuestFileSystems } from '../../../src/lab/guest-files.js';
import { LAB_CREDENTIALS, LAB_VCENTERS, LAB_ZERTO_SITES, type LabZertoSite } from '../../../src/lab/topology.js';
import { LAB_TLS, startLabZvm, type LabZvm, type LabZvmOptions } from '../../../src/lab/zvm/index.js';
import { ZvmClient } from '../../../src/zerto/client.js';
import type { Logger } from '../../../src/core/logger.js';
import { withSiteDefaults } from '../../../src/zerto/site-config.js';
import type { VmLocator, VmLocatorMatch } from '../../../src/zerto/vm-locator.js';

export const CLIENT_SECRET = 'lab-client-secret-9f8e7d';

export function labSite(name: string): LabZertoSite {
  return LAB_ZERTO_SITES.find((s) => s.name === name)!;
}

export interface LabHandle {
  zvm: LabZvm;
  client: ZvmClient;
  guests: GuestFileSystems;
  callLog: LabCallLog;
  secrets: SecretSource;
  tmp: string;
  logs: Array<{ level: string; obj: object; msg?: string }>;
  /** Another client for the same ZVM, e.g. with other credentials. */
  newClient(env: Record<string, string | undefined>, overrides?: { clientId?: string; verifyTls?: boolean; caFile?: string; requestTimeoutMs?: number; clock?: () => number }): ZvmClient;
  close(): Promise<void>;
}

export interface LabHandleOptions extends Partial<Omit<LabZvmOptions, 'site' | 'guests'>> {
  site?: string;
  guests?: GuestFileSystems;
  env?: Record<string, string | undefined>;
  callLog?: LabCallLog;
  /** The default client's clock (its token renewal); default Date.now. */
  clock?: () => number;
}

export async function startLab(opts: LabHandleOptions = {}): Promise<LabHandle> {
  const { site: siteName, guests: givenGuests, env: givenEnv, callLog: givenLog, clock, ...zvmOpts } = opts;
  const site = labSite(siteName ?? 'lab-zvm');
  const guests = givenGuests ?? GuestFileSystems.fromTopology();
  const callLog = givenLog ?? new LabCallLog();
  const zvm = await startLabZvm({
    credentials: { ...LAB_CREDENTIALS }, clientSecret: CLIENT_SECRET, autoCheckpointMs: 200, taskDurationMs: 150,
    ...zvmOpts, site, guests, callLog,
  });
  const logs: LabHandle['logs'] = [];
  const logger: Logger = {
    debug: (obj, msg) => logs.push({ level: 'debug', obj, msg }),
    info: (obj, msg) => logs.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => logs.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => logs.push({ level: 'error', obj, msg }),
  };
  const clients: ZvmClient[] = [];
  const newClient: LabHandle['newClient'] = (env, overrides = {}) => {
    const c = new ZvmClient({
      site: withSiteDefaults({
        name: site.name, url: zvm.url, credentialPrefix: site.credentialPrefix, vcenterTargets: site.vcenterTargets,
        verifyTls: overrides.verifyTls ?? true, caFile: 'caFile' in overrides ? overrides.caFile : LAB_TLS.ca,
        ...(overrides.clientId ? { clientId: overrides.clientId } : {}),
      }),
      secrets: envSecretSource(env), logger, requestTimeoutMs: overrides.requestTimeoutMs ?? 10_000,
      ...(overrides.clock ? { clock: overrides.clock } : {}),
    });
    clients.push(c);
    return c;
  };
  const env = givenEnv ?? { [`${site.credentialPrefix}_USER`]: LAB_CREDENTIALS.user, [`${site.credentialPrefix}_PASSWORD`]: LAB_CREDENTIALS.password };
  const client = newClient(env, clock ? { clock } : {});
  const tmp = await mkdtemp(join(tmpdir(), 'zvm-test-'));
  return {
    zvm, client, guests, callLog, secrets: envSecretSource(env), tmp, logs, newClient,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await zvm.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** A VmLocator over the lab topology, as the vSphere facade would answer it. */
export function labLocator(opts: { instanceUuidOverride?: string } = {}): VmLocator & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async resolveHostOrName(query) {
      calls.push(query);
      const q = query.toLowerCase();
      const out: VmLocatorMatch[] = [];
      for (const vc of LAB_VCENTERS) {
        for (const vm of vc.vms) {
          const short = vm.hostname.split('.')[0]!.toLowerCase();
          const on = vm.name === query ? 'name' : vm.hostname.toLowerCase() === q ? 'hostname' : short === q ? 'short_hostname' : vm.ip === query ? 'ip' : null;
          if (!on) continue;
          out.push({ target: vc.target, moid: vm.moid, name: vm.name, hostname: vm.hostname, ip: vm.ip, instanceUuid: opts.instanceUuidOverride ?? vc.instanceUuid, matchedOn: on });
        }
      }
      return out;
    },
  };
}

/** Runs `fn` and returns what it threw (fails the test if it did not throw). */
export async function thrown(fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}
