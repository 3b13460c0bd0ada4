// `--lab`: the simulated lab as a product feature. Starts two simulated vCenters (and the
// simulated ZVMs) on 127.0.0.1 and builds the configuration that points the real clients at them,
// with the bundled lab policy and the destructive tools enabled for the lab targets. The same
// function backs the end-to-end tests, so they run exactly what a user runs.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSettings } from '../config/settings.js';
import { ConfigError, type ConfigProblem } from '../config/problems.js';
import { PolicyFileStore, type PolicySource } from '../config/policy-store.js';
import { EMPTY_APP_CONFIG, type LoadedConfig } from '../config/load.js';
import type { TargetEntry } from '../config/targets.js';
import type { LabCallLog } from './call-log.js';
import { LAB_CREDENTIALS, LAB_VCENTERS, LAB_ZERTO_CLIENT, LAB_ZERTO_SITES, labVmIdentifier } from './topology.js';
import { GuestFolder } from './guest-folder.js';
import type { DownstreamServerConfig } from '../config/downstream-config.js';
import { guestFileSpec } from '../config/downstream-undo.js';
import { startLabVcenter, type LabVcenterHandle } from './vcenter/index.js';
import { LabJournal, startLabZvm, type LabZvm } from './zvm/index.js';
import { GuestFileSystems } from './guest-files.js';
import { labTools, LAB_CATALOG } from './lab-tools.js';
import type { ZertoSiteEntry } from '../config/app-config.js';
import type { AnyTool } from '../tools/define.js';
import type { CatalogEntry } from '../core/catalog.js';
import { LAB_MODE_GUESTFS, labSettingsError } from './lab-mode-identity.js';

export const LAB_CA_FILE = fileURLToPath(new URL('./tls/lab-ca.pem', import.meta.url));
export const LAB_POLICY_FILE = fileURLToPath(new URL('./lab-policy.yaml', import.meta.url));

export interface LabOptions {
  /** Environment (DRY_RUN, AUDIT_LOG_PATH, WEB_UI_*...) as the user set it. */
  env?: Record<string, string | undefined>;
  /** Folder for the audit log and state files; default a fresh private temp folder per run. */
  stateDir?: string;
  /** Overrides each vCenter's filler VM count (benchmarks). */
  fillerVms?: number;
  /** A policy other than the bundled lab policy (tests). */
  policy?: PolicySource;
  taskMs?: number;
  /** How long a simulated ZVM task (checkpoint insert, FLR mount) takes; default 300 ms. */
  zvmTaskMs?: number;
  /** Automatic journal checkpoints every N ms; default 2000. */
  autoCheckpointMs?: number;
  /** Start the simulated ZVMs (default true). */
  zerto?: boolean;
  /** Record every call the simulators serve (tests; src/lab/testing.ts passes one). `--lab` keeps none. */
  callLog?: LabCallLog;
  /**
   * Put the real filesystem MCP server behind the gateway as downstream `guestfs`, rooted at
   * app-01's files on disk (default false here; `--lab` turns it on).
   */
  guestfs?: boolean;
}

/** The lab guest whose files the guestfs downstream serves. */
export const GUESTFS_VM = 'app-01';

export interface RunningLab {
  config: LoadedConfig;
  /** Credentials for the simulated targets, to merge into the secret source's environment. */
  env: Record<string, string>;
  callLog?: LabCallLog;
  vcenters: Map<string, LabVcenterHandle>;
  zvms: Map<string, LabZvm>;
  guests: GuestFileSystems;
  /** app-01's files on disk, served by the guestfs downstream (with guestfs: true). */
  guestFolder?: GuestFolder;
  /** The lab-only guest-write tool and its catalog entry, for startRuntime. */
  extraTools: AnyTool[];
  extraBuiltInCatalog: CatalogEntry[];
  stop(): Promise<void>;
}

export async function startLab(opts: LabOptions = {}): Promise<RunningLab> {
  const env = opts.env ?? {};
  const unusable = labSettingsError(env);
  if (unusable) throw unusable;
  const { settings } = readSettings(env);
  const callLog = opts.callLog;
  const vcenters = new Map<string, LabVcenterHandle>();
  const credentials: Record<string, string> = {};
  const targets: TargetEntry[] = [];
  const zvms = new Map<string, LabZvm>();
  const guests = GuestFileSystems.fromTopology();
  const sites: ZertoSiteEntry[] = [];
  const stopAll = async () => {
    await Promise.all([...vcenters.values(), ...zvms.values()].map((h) => h.close().catch(() => undefined)));
  };
  try {
    for (const vc of LAB_VCENTERS) {
      const handle = await startLabVcenter({
        vcenter: vc, credentials: { ...LAB_CREDENTIALS }, callLog,
        ...(opts.fillerVms !== undefined ? { fillerVms: opts.fillerVms } : {}),
        ...(opts.taskMs !== undefined ? { taskMs: opts.taskMs } : {}),
      });
      vcenters.set(vc.target, handle);
      credentials[`${vc.credentialPrefix}_USER`] = LAB_CREDENTIALS.user;
      credentials[`${vc.credentialPrefix}_PASSWORD`] = LAB_CREDENTIALS.password;
      targets.push({
        name: vc.target, host: '127.0.0.1', port: handle.port, protocol: 'https', insecure: false, caFile: LAB_CA_FILE,
        credentialPrefix: vc.credentialPrefix, tags: [...vc.tags], standaloneHost: false,
      });
    }
    // One journal for the lab: a VPG's protected and recovery ZVMs list the same checkpoints.
    const journal = new LabJournal();
    for (const site of opts.zerto === false ? [] : LAB_ZERTO_SITES.filter((s) => s.served)) {
      const zvm = await startLabZvm({
        site, guests, credentials: { ...LAB_CREDENTIALS }, clientSecret: LAB_ZERTO_CLIENT.secret, journal, callLog,
        recoveryVcenter: (target) => vcenters.get(target)?.recovered,
        taskDurationMs: opts.zvmTaskMs ?? 300, autoCheckpointMs: opts.autoCheckpointMs ?? 2000,
      });
      zvms.set(site.name, zvm);
      credentials[`${site.credentialPrefix}_USER`] = LAB_CREDENTIALS.user;
      credentials[`${site.credentialPrefix}_PASSWORD`] = LAB_CREDENTIALS.password;
      sites.push({
        name: site.name, url: zvm.url, clientId: 'zerto-client', credentialPrefix: site.credentialPrefix,
        verifyTls: true, caFile: LAB_CA_FILE, vcenterTargets: [...site.vcenterTargets],
      });
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  // A private folder per run (mkdtemp: unpredictable name, mode 0700), not a fixed path in the
  // shared temp directory that another local user could create first. AUDIT_LOG_PATH puts the
  // audit log, and the state and restored files beside it, where the user chose.
  const stateDir = opts.stateDir ?? (env.AUDIT_LOG_PATH ? dirname(env.AUDIT_LOG_PATH) : mkdtempSync(join(tmpdir(), 'zerto-rewind-lab-')));
  mkdirSync(stateDir, { recursive: true });
  if (!env.AUDIT_LOG_PATH) settings.auditLogPath = join(stateDir, 'audit.jsonl');
  settings.enableDestructive = true;
  // Destructive tools are on for the lab targets, but served only when chosen (TOOLSETS=all).
  settings.toolsets ??= 'default';
  settings.targetsFile = '(lab)';
  const guestFolder = opts.guestfs ? openGuestFolder(guests, stateDir) : undefined;
  const policy = opts.policy ?? new PolicyFileStore(env.POLICY_FILE || LAB_POLICY_FILE, true);
  settings.policyFile = env.POLICY_FILE || LAB_POLICY_FILE;

  const config: LoadedConfig = {
    settings,
    targets,
    app: {
      ...EMPTY_APP_CONFIG, sites, restoreDir: join(stateDir, 'restored'),
      downstream: guestFolder ? [guestfsDownstream(guestFolder.root)] : [],
      guard: { checkpointTimeoutMs: 60_000, pollIntervalMs: 200 },
    },
    policy,
    confirmationTtlSeconds: settings.confirmationTtlSeconds,
    warnings: [],
    notices: [
      `Lab mode: ${targets.map((t) => `${t.name} at https://127.0.0.1:${t.port}/sdk`).join(', ')}; ` +
        `${sites.map((s) => `Zerto site ${s.name} at ${s.url}`).join(', ')}; audit log ${settings.auditLogPath}.`,
      ...(sites.length ? [`Lab ZVM API clients: client_credentials with client_id ${LAB_ZERTO_CLIENT.id} and client_secret ${LAB_ZERTO_CLIENT.secret}, ` +
        `or the password grant with client_id zerto-client, user ${LAB_CREDENTIALS.user}.`] : []),
      ...(guestFolder ? [`Lab gateway: downstream 'guestfs' (the filesystem MCP server) serves ${GUESTFS_VM}'s files at ${guestFolder.root}; its writes are checkpointed first.`] : []),
    ],
  };
  return {
    config, env: credentials, callLog, vcenters, zvms, guests, ...(guestFolder ? { guestFolder } : {}),
    extraTools: labTools(guests), extraBuiltInCatalog: LAB_CATALOG,
    async stop() {
      await stopAll();
      guestFolder?.close();
    },
  };
}

function openGuestFolder(guests: GuestFileSystems, stateDir: string): GuestFolder {
  const vc = LAB_VCENTERS.find((v) => v.vms.some((vm) => vm.name === GUESTFS_VM))!;
  const vm = vc.vms.find((x) => x.name === GUESTFS_VM)!;
  // A private folder per run: two labs never share (or clobber) a guest's files.
  const root = mkdtempSync(join(stateDir, `guest-${GUESTFS_VM}-`));
  return GuestFolder.open(guests, { target: vc.target, moid: vm.moid }, labVmIdentifier(vc.target, vm.moid), root);
}

/** The filesystem server's tools the lab exposes (it has about fourteen). */
const GUESTFS_TOOLS = ['read_text_file', 'write_file', 'edit_file', 'list_directory', 'list_allowed_directories'];

/**
 * The filesystem server from npm, run with this Node, rooted at the guest folder and bound to its
 * VM. `tools: null` exposes every tool it has (tests of move_file and create_directory).
 */
export function guestfsDownstream(root: string, tools: string[] | null = GUESTFS_TOOLS): DownstreamServerConfig {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  const problems: ConfigProblem[] = [];
  // The server sees the guest's `/` as the folder: a write to <root>/etc/app.conf is the guest's /etc/app.conf.
  const guestFiles = guestFileSpec({ command: process.execPath, args: [entry, root], tools: tools ?? undefined }, { guest_root: root }, { file: '(lab)', path: 'guestfs' }, problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    name: 'guestfs', command: process.execPath, args: [entry, root], env: {}, vm: GUESTFS_VM,
    // The allowlist keeps the lab's default tools/list inside the context budget (docs/toolsets.md,
    // "Context budget"): what the demo and a first-time user need to read, edit and write guest files.
    ...(tools ? { tools } : {}),
    ...(guestFiles ? { guestFiles } : {}),
    startupTimeoutMs: 30_000, callTimeoutMs: 60_000, callTotalTimeoutMs: 240_000, maxTools: 300,
  };
}

/** main.ts's entry: the lab configured from the user's environment (its handshake: lab-mode-identity.ts). */
export async function startLabMode(env: Record<string, string | undefined>, _cwd: string): Promise<RunningLab> {
  return startLab({ env, guestfs: LAB_MODE_GUESTFS });
}
