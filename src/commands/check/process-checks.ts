// Checks of the process itself, from the same configuration the server loads: the audit log can
// be appended to, the policy parses, the dashboard token is strong enough to be a password, and
// the restore folder is a place where recovered files may safely land, and TOOLSETS names real sets.
import { existsSync, lstatSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, parse, resolve } from 'node:path';
import type { LoadedConfig } from '../../config/load.js';
import { AuditWriter } from '../../audit/audit-writer.js';
import { MIN_TOKEN_LENGTH } from '../../dashboard/auth.js';
import { isHttpMode, loadHttpConfig, missingResourceWarning } from '../../mcp/http/http-config.js';
import { parseToolsets, toolsetProblem } from '../../tools/toolsets.js';
import { row, type CheckRow } from './check-result.js';

const SUBJECT = 'process';
/** Bits of entropy below which a token is guessable offline; 128 is what `openssl rand -hex 16` gives. */
const STRONG_TOKEN_BITS = 96;

export function checkProcess(config: LoadedConfig, env: Record<string, string | undefined> = {}): CheckRow[] {
  return [auditRow(config), policyRow(config), tokenRow(config, env), restoreRow(config.app.restoreDir), toolsetsRow(config), ...httpRows(env)];
}

/**
 * HTTP mode (seen through MCP_TRANSPORT): what the server would refuse at startup, and the resource
 * tokens must be for (serve-http logs the same warning when it is not named).
 */
function httpRows(env: Record<string, string | undefined>): CheckRow[] {
  if (!isHttpMode(false, env)) return [];
  if (!env.OAUTH_ISSUER?.trim()) {
    return [row(SUBJECT, 'http_settings', 'warn', 'MCP_TRANSPORT=http without OAUTH_ISSUER: the server starts only with --insecure-local, on loopback, with no authentication', 'Set OAUTH_ISSUER to your identity provider for a team.')];
  }
  let config: ReturnType<typeof loadHttpConfig>;
  try {
    config = loadHttpConfig(env, false);
  } catch (err) {
    return [row(SUBJECT, 'http_settings', 'fail', `the server refuses to start: ${(err as Error).message}`)];
  }
  const warning = missingResourceWarning(config, `http://${config.host}:${config.port}/mcp`);
  if (warning) return [row(SUBJECT, 'http_settings', 'warn', warning)];
  const resource = config.oauth?.audience ?? `${config.publicUrl!.replace(/\/$/, '')}/mcp`;
  return [row(SUBJECT, 'http_settings', 'ok', `tokens must be for ${resource}${config.dashboardSignIn ? '; the dashboard asks the identity provider for it' : ''}`)];
}

function toolsetsRow(config: LoadedConfig): CheckRow {
  const selection = parseToolsets(config.settings.toolsets, config.settings.enableDestructive);
  const problem = toolsetProblem(selection);
  if (problem) return row(SUBJECT, 'toolsets', 'fail', problem, 'Fix TOOLSETS / --toolsets; the server refuses to start with an unknown toolset.');
  return row(SUBJECT, 'toolsets', 'ok', `serving ${[...selection.sets].join(', ')}`);
}

function auditRow(config: LoadedConfig): CheckRow {
  const path = config.settings.auditLogPath;
  const problem = AuditWriter.checkWritable(path);
  return problem ? row(SUBJECT, 'audit_log', 'fail', problem, 'Set AUDIT_LOG_PATH to a file in a folder this user can write.') : row(SUBJECT, 'audit_log', 'ok', `${path} is writable`);
}

function policyRow(config: LoadedConfig): CheckRow {
  const state = config.policy.current();
  if (!state.ok) return row(SUBJECT, 'policy', 'fail', `policy does not load: ${state.error}`, `Fix ${config.settings.policyFile}; until then every change is refused (fail closed).`);
  return row(SUBJECT, 'policy', 'ok', `${config.settings.policyFile} parses`);
}

/** Entropy estimate from the alphabet the token draws on (a lower bound for random tokens). */
export function tokenBits(token: string): number {
  let alphabet = 0;
  if (/[a-z]/.test(token)) alphabet += 26;
  if (/[A-Z]/.test(token)) alphabet += 26;
  if (/[0-9]/.test(token)) alphabet += 10;
  if (/[^A-Za-z0-9]/.test(token)) alphabet += 32;
  const distinct = new Set(token).size;
  return Math.min(token.length * Math.log2(Math.max(alphabet, 2)), distinct * 8);
}

function tokenRow(config: LoadedConfig, env: Record<string, string | undefined>): CheckRow {
  const { enabled, token } = config.settings.webUi;
  if (!enabled) return row(SUBJECT, 'dashboard_token', 'ok', 'dashboard off (WEB_UI_ENABLED is not true)');
  // HTTP mode with the IdP sign-in takes no token (dashboard/oidc.ts); `check` sees the mode only
  // through MCP_TRANSPORT, not through a --http flag.
  if (isHttpMode(false, env) && env.OAUTH_ISSUER?.trim() && env.WEB_UI_OIDC_CLIENT_ID?.trim()) {
    return row(SUBJECT, 'dashboard_token', 'ok', `dashboard signs people in with ${env.OAUTH_ISSUER} (client ${env.WEB_UI_OIDC_CLIENT_ID}); WEB_UI_TOKEN is not used`);
  }
  const fix = 'Set WEB_UI_TOKEN to a random secret, e.g. WEB_UI_TOKEN=$(openssl rand -hex 16).';
  if (!token) return row(SUBJECT, 'dashboard_token', 'fail', 'WEB_UI_ENABLED=true but WEB_UI_TOKEN is not set: the server refuses to start', fix);
  if (token.length < MIN_TOKEN_LENGTH) return row(SUBJECT, 'dashboard_token', 'fail', `WEB_UI_TOKEN has ${token.length} characters, fewer than the ${MIN_TOKEN_LENGTH} required`, fix);
  const bits = Math.floor(tokenBits(token));
  if (bits < STRONG_TOKEN_BITS) return row(SUBJECT, 'dashboard_token', 'warn', `WEB_UI_TOKEN looks weak (about ${bits} bits: too few distinct characters)`, fix);
  return row(SUBJECT, 'dashboard_token', 'ok', `WEB_UI_TOKEN set, ${token.length} characters, about ${bits} bits`);
}

const SYSTEM_FOLDERS = ['/', '/bin', '/boot', '/dev', '/etc', '/lib', '/proc', '/sbin', '/sys', '/usr', '/var', 'C:\\Windows', 'C:\\Program Files'];

function restoreRow(dir: string): CheckRow {
  const abs = resolve(dir);
  const fix = 'Set restore_dir in config.json to a private folder of its own (created on first use when missing).';
  if (SYSTEM_FOLDERS.some((s) => s.toLowerCase() === abs.toLowerCase()) || abs === parse(abs).root || abs === homedir()) {
    return row(SUBJECT, 'restore_dir', 'fail', `${abs} is a system or home folder: recovered files would land among system files`, fix);
  }
  let probe = abs;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  if (probe === abs) {
    if (lstatSync(abs).isSymbolicLink()) return row(SUBJECT, 'restore_dir', 'fail', `${abs} is a symbolic link: files would be written wherever it points`, fix);
    if (!statSync(abs).isDirectory()) return row(SUBJECT, 'restore_dir', 'fail', `${abs} exists and is not a folder`, fix);
  }
  const mode = statSync(probe).mode;
  if (process.platform !== 'win32' && mode & 0o002) {
    // A sticky shared folder (/tmp) protects existing entries, but not a name nobody took yet.
    if (mode & 0o1000 && probe !== abs) return row(SUBJECT, 'restore_dir', 'warn', `${abs} does not exist yet and ${probe} is shared by every user: another account could create it first`, fix);
    return row(SUBJECT, 'restore_dir', 'fail', `${probe} is writable by every user: another account could plant or swap recovered files`, fix);
  }
  return row(SUBJECT, 'restore_dir', 'ok', probe === abs ? `${abs} is a private folder` : `${abs} will be created under ${probe}`);
}
