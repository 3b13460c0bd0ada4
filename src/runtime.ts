// Builds the running server from a loaded configuration: audit writer, vendor clients, guard,
// dashboard. Shared by main.ts (stdio) and the end-to-end tests (in-memory transport), so both run
// the same wiring.
import type { LoadedConfig } from './config/load.js';
import { AuditWriter } from './core/audit-writer.js';
import type { SecretSource } from './core/secrets.js';
import { buildServer, type BuiltServer } from './server.js';
import { ALL_TOOLS } from './tools/all-tools.js';
import { TargetPool } from './vsphere/target-pool.js';
import type { Logger } from './tools/services.js';

export interface RuntimeOptions {
  config: LoadedConfig;
  secrets: SecretSource;
  logger: Logger;
  /** Lab mode: destructive tools on (for lab targets only, by the bundled policy). */
  lab?: boolean;
  /** Per-target deadline of a fan-out read (ms); default 30 s. */
  fanOutTimeoutMs?: number;
  perTargetConcurrency?: number;
}

export interface Runtime {
  built: BuiltServer;
  audit: AuditWriter;
  shutdown(): Promise<void>;
}

export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const { config, secrets, logger } = opts;
  const auditProblem = AuditWriter.checkWritable(config.settings.auditLogPath);
  if (auditProblem) throw new Error(`${auditProblem}. Set AUDIT_LOG_PATH to a writable file.`);
  const audit = new AuditWriter(config.settings.auditLogPath, () => secrets.knownValues());

  const vsphere = config.targets.length
    ? new TargetPool(config.targets, { secrets, logger, ...(opts.perTargetConcurrency ? { perTargetConcurrency: opts.perTargetConcurrency } : {}) })
    : undefined;

  const built = buildServer({
    settings: config.settings,
    targets: config.targets,
    policy: config.policy,
    audit,
    secrets,
    logger,
    tools: ALL_TOOLS,
    confirmationTtlSeconds: config.confirmationTtlSeconds,
    ext: { ...(vsphere ? { vsphere } : {}), ...(opts.fanOutTimeoutMs ? { fanOutTimeoutMs: opts.fanOutTimeoutMs } : {}) },
  });

  return {
    built,
    audit,
    async shutdown() {
      await built.close();
      await vsphere?.closeAll().catch((err) => logger.warn({ err: String(err) }, 'vSphere logout failed'));
      await audit.close();
    },
  };
}
