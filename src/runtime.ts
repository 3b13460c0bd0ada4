// Builds the running server from a loaded configuration: audit writer, vendor clients, guard,
// dashboard. Shared by main.ts (stdio) and the end-to-end tests (in-memory transport), so both run
// the same wiring.
import type { LoadedConfig } from './config/load.js';
import { AuditWriter } from './core/audit-writer.js';
import type { SecretSource } from './core/secrets.js';
import { buildServer, type BuiltServer } from './server.js';
import { ALL_TOOLS } from './tools/all-tools.js';
import type { Logger } from './tools/services.js';

export interface RuntimeOptions {
  config: LoadedConfig;
  secrets: SecretSource;
  logger: Logger;
  /** Lab mode: destructive tools on (for lab targets only, by the bundled policy). */
  lab?: boolean;
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

  const built = buildServer({
    settings: config.settings,
    targets: config.targets,
    policy: config.policy,
    audit,
    secrets,
    logger,
    tools: ALL_TOOLS,
    confirmationTtlSeconds: config.confirmationTtlSeconds,
  });

  return {
    built,
    audit,
    async shutdown() {
      await built.close();
      await audit.close();
    },
  };
}
