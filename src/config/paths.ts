// MCP clients start servers in any working directory, so a relative path inside a config file is
// resolved against the folder of the file that names it, and a relative path in an environment
// variable against the folder of the config file (ZERTO_REWIND_CONFIG) when there is one.
import { dirname, isAbsolute, join, resolve } from 'node:path';

export function resolveRelative(namingFile: string, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(namingFile), path);
}

export function resolveFromBase(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

/** State files live beside the audit log, never in the operator's config folder. */
export function stateFile(auditLogPath: string, name: string): string {
  return join(dirname(auditLogPath), `zerto-rewind-${name}.json`);
}
