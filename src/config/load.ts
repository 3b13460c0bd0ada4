// Loads everything the server needs from the environment and the three files, collecting every
// problem (file, path, reason) so a broken setup is reported in one go and the process exits
// non-zero before it speaks MCP.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readSettings, type Settings } from './settings.js';
import { loadTargetsFile, type TargetEntry } from './targets.js';
import { parseAppConfig, type AppConfig } from './app-config.js';
import { PolicyFileStore, type PolicySource } from './policy-store.js';
import { resolveFromBase } from './paths.js';
import { CREDENTIALS_FILE_VARIABLE, loadCredentialsFile } from './credentials-file.js';
import type { ConfigProblem } from './problems.js';

export interface LoadedConfig {
  settings: Settings;
  targets: TargetEntry[];
  app: AppConfig;
  policy: PolicySource;
  confirmationTtlSeconds: number;
  warnings: string[];
  notices: string[];
  /** ZERTO_REWIND_CREDENTIALS_FILE's variables (the environment's own win over them). */
  fileCredentials?: Record<string, string>;
}

export const EMPTY_APP_CONFIG: AppConfig = {
  sites: [], guard: { checkpointTimeoutMs: 120_000, pollIntervalMs: 2_000 }, catalog: [], restoreDir: './restored', downstream: [], downstreamFirstListingMs: 2_000, inlineCredentials: {}, warnings: [],
};

/**
 * Relative paths in environment variables resolve against the folder of ZERTO_REWIND_CONFIG when
 * it is set (MCP clients start servers in arbitrary working directories), else against `cwd`.
 */
export function loadConfiguration(env: Record<string, string | undefined>, cwd: string): { config?: LoadedConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const { settings, problems: envProblems } = readSettings(env);
  problems.push(...envProblems.map((p) => ({ file: 'environment', path: p.variable, reason: p.reason })));

  const configFile = settings.zertoConfigFile ? resolve(cwd, settings.zertoConfigFile) : undefined;
  const base = configFile ? dirname(configFile) : cwd;
  settings.targetsFile = resolveFromBase(base, settings.targetsFile);
  settings.policyFile = resolveFromBase(base, settings.policyFile);
  settings.auditLogPath = resolveFromBase(base, settings.auditLogPath);
  const warnings: string[] = [];
  const notices: string[] = [];

  let app = EMPTY_APP_CONFIG;
  if (configFile) {
    try {
      const raw = JSON.parse(readFileSync(configFile, 'utf8')) as unknown;
      const parsed = parseAppConfig(raw, configFile, env);
      problems.push(...parsed.problems);
      if (parsed.config) app = parsed.config;
    } catch (err) {
      const reason = err instanceof SyntaxError ? `not valid JSON: ${err.message}` : `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      problems.push({ file: configFile, path: '', reason });
    }
    warnings.push(...app.warnings);
  }

  let targets: TargetEntry[] = [];
  const haveTargetsFile = existsSync(settings.targetsFile) || settings.targetsFileExplicit;
  if (haveTargetsFile) {
    const loaded = loadTargetsFile(settings.targetsFile);
    problems.push(...loaded.problems);
    targets = loaded.targets;
  } else {
    notices.push(
      `No targets file (${settings.targetsFile}): running Zerto-only. The vSphere tools, hostname lookup for ` +
        'zerto_find_protection and the guard of vSphere changes need TARGETS_FILE.',
    );
  }
  for (const site of app.sites) {
    for (const [i, t] of site.vcenterTargets.entries()) {
      if (targets.length && !targets.some((x) => x.name === t)) {
        problems.push({ file: configFile ?? 'config', path: `sites(${site.name}).vcenter_targets[${i}]`, reason: `no target named '${t}' in ${settings.targetsFile}` });
      }
    }
  }
  if (!configFile && !haveTargetsFile) {
    problems.push({ file: 'environment', path: 'TARGETS_FILE / ZERTO_REWIND_CONFIG', reason: 'nothing to manage: set TARGETS_FILE (vSphere) and/or ZERTO_REWIND_CONFIG (Zerto), or run with --lab to try the simulated lab' });
  }

  let fileCredentials: Record<string, string> | undefined;
  const credentialsFile = env[CREDENTIALS_FILE_VARIABLE];
  if (credentialsFile) {
    const loaded = loadCredentialsFile(resolveFromBase(base, credentialsFile));
    problems.push(...loaded.problems);
    fileCredentials = loaded.values;
  }

  const policy = new PolicyFileStore(settings.policyFile, settings.policyFileExplicit);
  problems.push(...policy.startupProblems());
  let ttl = settings.confirmationTtlSeconds;
  const state = policy.current();
  if (state.ok && state.policy.confirmation_ttl_seconds !== undefined) ttl = state.policy.confirmation_ttl_seconds;
  if (problems.length) return { problems };
  return { config: { settings, targets, app, policy, confirmationTtlSeconds: ttl, warnings, notices, ...(fileCredentials ? { fileCredentials } : {}) }, problems };
}
