// Builds the running server from a loaded configuration: audit writer, vSphere pool, Zerto
// clients, the guard, the catalog, the dashboard. Shared by main.ts (stdio) and the end-to-end
// tests (in-memory transport), so both run the same wiring.
import { stateFile } from '../config/paths.js';
import type { LoadedConfig } from '../config/load.js';
import { AuditWriter } from '../audit/audit-writer.js';
import { auditShutdown, auditStartup } from '../audit/server-lines.js';
import { VERSION } from '../core/version.js';
import { MutatingCatalog, type CatalogEntry } from '../core/catalog.js';
import { FileCatalogStore } from '../state/files/catalog-file-store.js';
import { FileChangeStore } from '../state/files/change-file-store.js';
import type { ChangeRecord } from '../core/change-record.js';
import type { SecretSource } from '../core/secrets.js';
import { buildServer, type BuiltServer, type ServerDeps } from './build-server.js';
import { toolListChanges } from '../mcp/server-identity.js';
import { ALL_TOOLS } from '../tools/all-tools.js';
import type { AnyTool } from '../tools/define.js';
import { surfaceOf } from '../tools/toolsets.js';
import { seedSchemas } from '../mcp/listing/registry.js';
import { PRECOMPUTED_SCHEMAS } from '../mcp/listing/precomputed-schemas.js';
import type { Logger } from '../core/logger.js';
import { createZertoGuard } from './adapters/zerto-guard.js';
import type { ZertoServices } from '../zerto/zerto-services.js';
import { createVsphereLocator } from './adapters/vsphere-locator.js';
import { TargetPool } from '../vsphere/target-pool.js';
import { FlrSessionRegistry, ZvmClient, withSiteDefaults } from '../zerto/index.js';
import type { DashboardHandle } from '../dashboard/server.js';
import { dashboardPorts } from './adapters/dashboard-ports.js';
import type { Gateway } from './gateway.js';
import { cleanUpAfterEarlierRun } from './startup/flr-orphans.js';
import { scopeOfToolCall, type ScopeOfTool } from '../pipeline/tool-scope.js';
import { pendingCallCodec, type PendingCall } from '../pipeline/pending-call.js';
import { recoverChanges } from './startup/change-recovery.js';

export interface RuntimeOptions {
  config: LoadedConfig;
  secrets: SecretSource;
  logger: Logger;
  /** Tools beyond ALL_TOOLS (lab mode's guest-write tool). */
  extraTools?: AnyTool[];
  /** Catalog entries that are built in for this run (lab mode's guest-write tool). */
  extraBuiltInCatalog?: CatalogEntry[];
  /** Per-target deadline of a fan-out read (ms); default 30 s. */
  fanOutTimeoutMs?: number;
  perTargetConcurrency?: number;
  /** The clock of proposals' TTL, the rate limits and handlers' own waits (default Date.now). */
  clock?: () => number;
  /**
   * Probe every vSphere target in the background at startup (default true). The test harness turns
   * it off: its simulated vCenters share the test's event loop, which a loaded machine stalls
   * past the probe's deadline, so a healthy simulator would start marked down.
   */
  probeTargetsAtStart?: boolean;
  /** First restart delay of a downstream server that went down (doubles per attempt); default 500 ms. */
  downstreamBackoffMs?: number;
  /** Central mode: proposals, rate budgets, the audit log, catalog additions and FLR sessions live in this PostgreSQL database. */
  databaseUrl?: string;
  /** Central mode's timeouts and heartbeat (tests shorten them). */
  centralOptions?: import('../state/pg/central-state.js').CentralOptions;
  /** HTTP mode: the dashboard signs people in with the IdP instead of taking WEB_UI_TOKEN. */
  dashboardSignIn?: import('../dashboard/oidc.js').DashboardSignInConfig;
  /** stdio: the session main.ts opened before the runtime started (it has answered `initialize`). */
  openedSession?: ServerDeps['openedSession'];
}

export interface Runtime {
  built: BuiltServer;
  audit: AuditWriter;
  /** Central mode's shared state (set with databaseUrl). */
  central?: import('../state/pg/central-state.js').CentralState<PendingCall>;
  dashboard?: DashboardHandle;
  /** Resolves once every downstream server's first start attempt has ended (at once without any); nothing waits for it. */
  downstreamStarted: Promise<void>;
  /**
   * Resolves when every downstream server has listed its tools (or failed to), or after
   * config.json downstream_first_listing_ms, whichever is first; at once without any. The stdio
   * edge answers the first tools/list after it, so a one-shot client sees the gateway's tools.
   */
  firstListing(): Promise<void>;
  /** The scope a tools/call needs, gateway tools included (HTTP mode's 403 insufficient_scope). */
  scopeOfTool: ScopeOfTool;
  /**
   * Resolves once the cleanup after an earlier run (orphaned FLR sessions, half-written restore
   * files) has ended; never rejects. Nothing waits for it; a shutdown cuts it short.
   */
  startupCleanup: Promise<void>;
  /** `reason` lands in the audit log's `shutdown` line. */
  shutdown(reason?: string): Promise<void>;
}

export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const { config, secrets, logger } = opts;
  const { settings } = config;
  // The dashboard's code loads only when it is enabled (startup time of every other run).
  const dashboardModule = settings.webUi.enabled ? await import('../dashboard/server.js') : undefined;
  if (!opts.dashboardSignIn) dashboardModule?.assertDashboardConfig({ enabled: settings.webUi.enabled, ...(settings.webUi.token ? { token: settings.webUi.token } : {}) });
  const auditProblem = AuditWriter.checkWritable(settings.auditLogPath);
  if (auditProblem) throw new Error(`${auditProblem}. Set AUDIT_LOG_PATH to a writable file.`);
  const audit = new AuditWriter(settings.auditLogPath, () => secrets.knownValues());
  // Central mode keeps change records in PostgreSQL (opened below); stdio beside the audit log.
  const fileChanges = opts.databaseUrl ? undefined : new FileChangeStore(stateFile(settings.auditLogPath, 'changes'));
  for (const problem of fileChanges?.problems ?? []) logger.warn({}, problem);
  const fileOrphans = (await fileChanges?.orphans()) ?? [];
  // Fails startup when the log cannot be written; closes proposals a previous process left open.
  const started = await auditStartup(audit, { version: VERSION, lab: (opts.extraTools?.length ?? 0) > 0 }, { followedOn: new Set(fileOrphans.map((c) => c.id)) }).catch((err: unknown) => {
    throw new Error(`audit log ${settings.auditLogPath} cannot be written (${(err as Error).message}). Free disk space or fix AUDIT_LOG_PATH; the server does not run without its audit log.`);
  });
  started.closed.then(
    (left) => { if (left.proposals.length || left.changes.length) logger.warn({ expired: left.proposals.length, interrupted: left.changes.length }, 'closed proposals and changes the previous process left open (see the audit log)'); },
    (err) => logger.error({ err: String(err) }, 'could not close what the previous process left open in the audit log'),
  );

  // Imported only with a database: the embedded (file) mode never loads pg. Opened before the
  // Zerto sites, whose FLR session registry lives there too; `tools` is known further down. It
  // opens whether or not the database answers (changes wait for it, reads do not).
  const central = opts.databaseUrl
    ? await (await import('../state/pg/central-state.js')).openCentralState(opts.databaseUrl, pendingCallCodec(() => tools), () => secrets.knownValues(), logger, opts.centralOptions)
    : undefined;
  // What this instance's state files held before central mode stays guarded and reported.
  await central?.importStateFiles({ catalog: stateFile(settings.auditLogPath, 'catalog'), flrSessions: stateFile(settings.auditLogPath, 'flr-sessions') });

  const vsphere = config.targets.length
    ? new TargetPool(config.targets, { secrets, logger, ...(opts.perTargetConcurrency ? { perTargetConcurrency: opts.perTargetConcurrency } : {}) })
    : undefined;
  // A dead vCenter is found in the background, not by the first call that waits on it.
  if (opts.probeTargetsAtStart !== false) vsphere?.probeAll();

  const locator = vsphere ? createVsphereLocator(vsphere, config.targets.map((t) => t.name)) : undefined;
  let zerto: ZertoServices | undefined;
  if (config.app.sites.length) {
    const sites = config.app.sites.map((s) => {
      const site = withSiteDefaults({ ...s });
      return { config: site, client: new ZvmClient({ site, secrets, logger }) };
    });
    const flrSessions = new FlrSessionRegistry({
      path: stateFile(settings.auditLogPath, 'flr-sessions'),
      ...(central ? { store: central.flrSessions } : {}),
      clients: new Map(sites.map((s) => [s.config.name, s.client])),
      logger,
    });
    zerto = {
      sites, flrSessions, restoreDir: config.app.restoreDir,
      checkpointTimeoutMs: config.app.guard.checkpointTimeoutMs, pollIntervalMs: config.app.guard.pollIntervalMs,
      ...(locator ? { locator } : {}),
    };
  }

  const ownTools = [...ALL_TOOLS, ...(opts.extraTools ?? [])];
  // This build's own declarations (lab mode's tool included): their schemas were converted at build.
  seedSchemas(ownTools, PRECOMPUTED_SCHEMAS);
  // Only a configuration whose names could collide refuses the start; the servers are started last
  // (nothing to clean up if the rest fails) and come up in the background, their tools announced
  // with tools/list_changed.
  let gateway: Gateway | undefined;
  if (toolListChanges(config)) {
    // Imported only here: the SDK's client side (stdio spawn, Streamable HTTP) is for downstream servers.
    const { createGateway } = await import('./gateway.js');
    gateway = createGateway(config.app.downstream, {
      logger, ownTools: ownTools.map((t) => t.name), secrets: () => secrets.knownValues(), pinsPath: stateFile(settings.auditLogPath, 'downstream-pins'),
      ...(opts.downstreamBackoffMs !== undefined ? { backoffMs: opts.downstreamBackoffMs } : {}),
    });
  }
  const tools = [...ownTools, ...(gateway?.tools ?? [])];
  // A kill mid-restore leaves a mounted FLR session and perhaps a half-written file: both are
  // cleaned up in the background (startup does not wait on a ZVM), after the audit's own closings.
  const stopCleanup = new AbortController();
  const cleanedUp = zerto ? cleanUpAfterEarlierRun(zerto, central?.audit ?? audit, started.closed, logger, stopCleanup.signal) : Promise.resolve();
  const builtIn: CatalogEntry[] = [
    ...tools.filter((t) => surfaceOf(t) === 'vsphere' && t.category !== 'read' && t.guard !== false)
      .map((t) => ({ tool: t.name, vm_arg: (t.guard && t.guard.vmArg) || 'vm', platform: 'any' as const, note: 'this server\'s own vSphere change; guarded implicitly' })),
    ...(opts.extraBuiltInCatalog ?? []),
  ];
  const catalog = new MutatingCatalog(builtIn, config.app.catalog, central?.catalog ?? new FileCatalogStore(stateFile(settings.auditLogPath, 'catalog')));
  for (const problem of catalog.problems) logger.warn({}, problem);
  gateway?.useCatalog(catalog);

  const changes = central?.changes ?? fileChanges!;
  const webUrl = settings.webUi.enabled ? `http://${settings.webUi.host}:${settings.webUi.port}/` : undefined;
  const built = buildServer({
    settings,
    targets: config.targets,
    policy: config.policy,
    audit: gateway ? gateway.audit(central?.audit ?? audit) : (central?.audit ?? audit),
    ...(central ? { stores: central } : {}),
    changes,
    secrets,
    logger,
    tools,
    ...(gateway ? { dynamicTools: gateway.dynamic } : {}),
    ...(opts.openedSession ? { openedSession: opts.openedSession } : {}),
    confirmationTtlSeconds: config.confirmationTtlSeconds,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(zerto ? { guard: createZertoGuard(zerto, vsphere) } : {}),
    webUi: { enabled: settings.webUi.enabled, ...(webUrl ? { url: webUrl } : {}) },
    ext: {
      ...(vsphere ? { vsphere } : {}),
      ...(locator ? { locator } : {}),
      ...(zerto ? { zerto } : {}),
      ...(gateway ? { downstream: { serverOf: (tool: string) => gateway!.manager.serverOf(tool), guestFiles: gateway.guestFiles } } : {}),
      catalog,
      ...(opts.fanOutTimeoutMs ? { fanOutTimeoutMs: opts.fanOutTimeoutMs } : {}),
    },
  });

  // Changes the previous process (or a dead instance) was following: closed by their tasks' real end.
  const recoverOrphans = (orphans: Promise<ChangeRecord[]>): Promise<void> => orphans
    .then((found) => recoverChanges({ store: changes, audit: central?.audit ?? audit, ...(vsphere ? { vsphere } : {}), logger, startupId: started.id, signal: stopCleanup.signal }, found))
    .then((closed) => { if (Object.keys(closed).length) logger.warn({ closed }, 'closed changes a stopped process left running (see the audit log)'); })
    .catch((err: unknown) => logger.error({ err: String(err) }, 'could not look up the changes a stopped process left running'));
  const recovered = recoverOrphans(central ? central.changes.orphans() : Promise.resolve(fileOrphans));
  // Central mode: an instance that dies later is found by the sweep, which hands its changes with
  // records to the same recovery before it closes anything as interrupted (interrupted-sweep.ts).
  central?.liveness.recoverWith(() => recoverOrphans(central.changes.orphans()));

  let dashboard: DashboardHandle | undefined;
  if (dashboardModule) {
    dashboard = await dashboardModule.startDashboard({
      host: settings.webUi.host, port: settings.webUi.port, allowedHosts: settings.webUi.allowedHosts,
      ...(opts.dashboardSignIn ? { signIn: opts.dashboardSignIn } : { token: settings.webUi.token! }),
      ...(central ? { signInRevocations: central.signInRevocations } : {}),
      ports: dashboardPorts(built, vsphere, central ? { table: central.auditTail } : { file: settings.auditLogPath }), logger,
    });
    built.services.webUi.url = dashboard.url;
    logger.info({ url: dashboard.url }, opts.dashboardSignIn ? 'approval dashboard listening (sign in with the identity provider)' : 'approval dashboard listening (open it with ?token=<WEB_UI_TOKEN>)');
  }

  return {
    built,
    audit,
    ...(central ? { central } : {}),
    ...(dashboard ? { dashboard } : {}),
    downstreamStarted: gateway?.start() ?? Promise.resolve(),
    scopeOfTool: scopeOfToolCall(built.tools, gateway ? () => gateway.dynamic.current() : undefined),
    firstListing: () => gateway?.firstListing(config.app.downstreamFirstListingMs) ?? Promise.resolve(),
    startupCleanup: Promise.all([cleanedUp, recovered]).then(() => undefined),
    async shutdown(reason = 'shutdown') {
      // Running calls answer first: the FLR unmount below must not pull a disk from under one.
      await built.drain();
      // Changes followed past their call get a grace to end; the next start finds the rest.
      await built.services.changes?.drain(10_000);
      await dashboard?.close().catch(() => undefined);
      // What the startup cleanup has not reached waits for the next start; what it is doing ends.
      stopCleanup.abort();
      await cleanedUp;
      await recovered;
      // Sessions this process mounted must not outlive it: unmount them before anything closes.
      await zerto?.flrSessions.unmountAllOpened({ waitMs: 10_000 }).catch((err) => logger.warn({ err: String(err) }, 'FLR unmount at shutdown failed'));
      await built.close();
      await gateway?.close().catch((err) => logger.warn({ err: String(err) }, 'stopping downstream servers failed'));
      await Promise.all((zerto?.sites ?? []).map((s) => s.client.close().catch(() => undefined)));
      await vsphere?.closeAll().catch((err) => logger.warn({ err: String(err) }, 'vSphere logout failed'));
      // Central mode: the table's last row, anchored in this file, so a cut tail is found later.
      const anchor = await central?.anchor().catch(() => undefined);
      await auditShutdown(audit, reason, anchor).catch((err) => logger.error({ err: String(err) }, 'audit write failed for the shutdown line'));
      await audit.close();
      await central?.close().catch(() => undefined);
    },
  };
}
