// What tool handlers and the pipeline can reach. Built once by app/build-server.ts (buildServer) and passed
// to every call; tests build it with the lab behind it.
import type { Settings } from '../config/settings.js';
import type { TargetEntry } from '../config/targets.js';
import type { PolicySource } from '../config/policy-store.js';
import type { ProposalStore } from '../core/confirmation-store.js';
import type { AuditSink } from '../audit/audit-writer.js';
import type { RateBudget } from '../core/rate-limiter.js';
import type { CheckpointGuard } from '../core/guard.js';
import type { SecretSource } from '../core/secrets.js';
import type { PendingCall } from '../pipeline/pending-call.js';
import type { TargetPool } from '../vsphere/target-pool.js';
import type { ZertoServices } from '../zerto/zerto-services.js';
import type { MutatingCatalog } from '../core/catalog.js';
import type { Logger } from '../core/logger.js';
import type { VmLocator } from '../zerto/index.js';
import type { ChangeWatcher } from '../pipeline/change-watcher.js';
import type { GuestFileGateway } from '../downstream/forward.js';
import type { TargetRef } from './define.js';

export interface ToolServices {
  settings: Settings;
  /** targets.yaml entries; empty in Zerto-only mode. */
  targets: TargetEntry[];
  policy: PolicySource;
  confirmations: ProposalStore<PendingCall>;
  audit: AuditSink;
  rateLimiter: RateBudget;
  /** Central mode: the budget reads fall back to while the shared one is unreachable. */
  localReadLimiter?: RateBudget;
  guard: CheckpointGuard;
  secrets: SecretSource;
  logger: Logger;
  /** Whether the approval page runs (a web-approval proposal is refused at once without it). */
  webUi: { enabled: boolean; url?: string };
  /** Follows changes past their call's bound; absent, a change runs inside its call (services built by hand in tests). */
  changes?: ChangeWatcher;
  /**
   * The vendor services nearly every tool needs (vSphere pool, Zerto sites, locator, catalog,
   * gateway); runtime.ts builds them from the configuration, tests pass their own to buildServer.
   */
  ext: ServiceExtensions;
  /** The server's clock (ServerDeps.clock) for handlers' own waits; absent, Date.now. */
  clock?: () => number;
}

/** A configured target as the policy and the audit see it (the per-target dry run included). */
export function targetRef(t: TargetEntry): TargetRef {
  return { name: t.name, host: t.host, tags: t.tags, ...(t.dryRun !== undefined ? { dryRun: t.dryRun } : {}) };
}

/** The configured target of that name, if there is one. */
export function configuredTarget(services: Pick<ToolServices, 'targets'>, name: string): TargetRef | undefined {
  const t = services.targets.find((x) => x.name === name);
  return t ? targetRef(t) : undefined;
}

/** Vendor services; each is absent when its vendor is not configured. */
export interface ServiceExtensions {
  /** One lazy session per vSphere target; absent in Zerto-only mode. */
  vsphere?: TargetPool;
  /** Per-call deadline for one target in a fan-out (ms). */
  fanOutTimeoutMs?: number;
  /** Zerto sites, locator, FLR sessions; absent without a Zerto site. */
  zerto?: ZertoServices;
  /** Finds a VM by name, hostname or IP across the vSphere targets; absent in Zerto-only mode. */
  locator?: VmLocator;
  /**
   * The gateway: which downstream server's namespace a tool name is in (configured, whether up or
   * not), and what an undo's put-back of guest files calls (src/undo/guest-file-restore.ts).
   */
  downstream?: { serverOf(tool: string): string | undefined; guestFiles?: GuestFileGateway };
  /** The mutating-tool catalog (built in, config.json, added). */
  catalog?: MutatingCatalog;
}
