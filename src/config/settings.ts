// Process-wide settings from environment variables. Names and defaults are vmware-mcp's, so an
// existing MCP client configuration keeps working; ZERTO_REWIND_CONFIG is zerto-ai-rewind's.

export interface Settings {
  enableDestructive: boolean;
  dryRun: boolean;
  targetsFile: string;
  /** Whether TARGETS_FILE was set explicitly (a missing explicit file is an error, a missing default is not). */
  targetsFileExplicit: boolean;
  policyFile: string;
  policyFileExplicit: boolean;
  auditLogPath: string;
  confirmationTtlSeconds: number;
  /** APPROVAL_QUESTION_SECONDS: how long an approval question in the client waits (at most half the TTL). */
  approvalQuestionSeconds: number;
  /**
   * TOOL_CALL_BOUND_SECONDS: how long one tools/call may take before it answers. A change still
   * running then answers `running` with its change_id; the server keeps following it.
   */
  callBoundSeconds: number;
  zertoConfigFile: string | undefined;
  webUi: { enabled: boolean; host: string; port: number; token: string | undefined; allowedHosts: string[] };
  logLevel: string;
  /** TOOLSETS (or --toolsets, which wins): which toolsets to serve; unset = the default sets. */
  toolsets?: string | undefined;
}

/** pino's levels. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface SettingsProblem {
  variable: string;
  reason: string;
}

function parseBool(env: Record<string, string | undefined>, name: string, fallback: boolean, problems: SettingsProblem[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  problems.push({ variable: name, reason: `expected true or false, got '${raw}'` });
  return fallback;
}

function parseInteger(
  env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number, problems: SettingsProblem[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push({ variable: name, reason: `expected an integer between ${min} and ${max}, got '${raw}'` });
    return fallback;
  }
  return n;
}

/** Reads settings; every malformed variable is reported, none stops the others from being read. */
export function readSettings(env: Record<string, string | undefined>): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const settings: Settings = {
    enableDestructive: parseBool(env, 'ENABLE_DESTRUCTIVE', false, problems),
    dryRun: parseBool(env, 'DRY_RUN', false, problems),
    targetsFile: env.TARGETS_FILE || './targets.yaml',
    targetsFileExplicit: Boolean(env.TARGETS_FILE),
    policyFile: env.POLICY_FILE || './policy.yaml',
    policyFileExplicit: Boolean(env.POLICY_FILE),
    auditLogPath: env.AUDIT_LOG_PATH || './audit.jsonl',
    confirmationTtlSeconds: parseInteger(env, 'CONFIRMATION_TTL_SECONDS', 120, 5, 86_400, problems),
    approvalQuestionSeconds: parseInteger(env, 'APPROVAL_QUESTION_SECONDS', 60, 1, 3_600, problems),
    // Under the 60 s at which Claude Desktop and SDK clients give up on a request.
    callBoundSeconds: parseInteger(env, 'TOOL_CALL_BOUND_SECONDS', 40, 1, 3_600, problems),
    zertoConfigFile: env.ZERTO_REWIND_CONFIG || undefined,
    webUi: {
      enabled: parseBool(env, 'WEB_UI_ENABLED', false, problems),
      host: env.WEB_UI_HOST || '127.0.0.1',
      port: parseInteger(env, 'WEB_UI_PORT', 8787, 0, 65_535, problems),
      token: env.WEB_UI_TOKEN || undefined,
      // Host header values beyond the bind address (a reverse proxy's name), comma-separated.
      allowedHosts: (env.WEB_UI_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
    },
    logLevel: env.LOG_LEVEL || 'info',
    toolsets: env.TOOLSETS || undefined,
  };
  if (!LOG_LEVELS.includes(settings.logLevel)) {
    problems.push({ variable: 'LOG_LEVEL', reason: `expected one of ${LOG_LEVELS.join(', ')}, got '${settings.logLevel}'` });
    settings.logLevel = 'info';
  }
  return { settings, problems };
}
