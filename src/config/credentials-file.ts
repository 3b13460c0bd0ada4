// ZERTO_REWIND_CREDENTIALS_FILE: the {PREFIX}_USER / _PASSWORD / _CLIENT_SECRET variables as one
// JSON file, for launchers that can only pass a fixed set of settings (a Claude Desktop bundle's
// user_config, a registry entry) while every target and Zerto site names its own prefix. The file
// holds secrets, so it must be private to its owner (mode 0600 or stricter): anything looser is
// refused at startup with the chmod that fixes it. Its values join the one secret source, so
// they are redacted like the environment's.
import { readFileSync, statSync } from 'node:fs';
import type { ConfigProblem } from './problems.js';

export const CREDENTIALS_FILE_VARIABLE = 'ZERTO_REWIND_CREDENTIALS_FILE';

/** The only names the file may hold: credentials, never other settings. */
const CREDENTIAL_NAME = /^[A-Z][A-Z0-9_]*_(USER|PASSWORD|CLIENT_SECRET)$/;

export interface CredentialsFileOptions {
  /** process.platform: Windows has no POSIX modes to check (its ACLs are the folder's). */
  platform?: NodeJS.Platform;
}

/** The file's variables, or every problem with it (mode, JSON, names, values); never its values in a problem. */
export function loadCredentialsFile(file: string, opts: CredentialsFileOptions = {}): { values: Record<string, string>; problems: ConfigProblem[] } {
  const problem = (path: string, reason: string) => ({ values: {}, problems: [{ file, path, reason }] });
  let text: string;
  try {
    const mode = statSync(file).mode & 0o777;
    if ((opts.platform ?? process.platform) !== 'win32' && (mode & 0o077) !== 0) {
      return problem('', `holds credentials but is readable by others (mode 0${mode.toString(8)}): run chmod 600 '${file}' and start again`);
    }
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return problem('', `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake, which may be a password.
    return problem('', 'not valid JSON: expected an object like {"VC_PROD1_USER": "...", "VC_PROD1_PASSWORD": "..."}');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return problem('', 'expected a JSON object of variable names to strings, e.g. {"VC_PROD1_USER": "...", "VC_PROD1_PASSWORD": "..."}');
  }
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!CREDENTIAL_NAME.test(name)) {
      problems.push({ file, path: name, reason: 'only credential variables belong here: {PREFIX}_USER, {PREFIX}_PASSWORD or {PREFIX}_CLIENT_SECRET, with the credential_env_prefix of a target or Zerto site' });
    } else if (typeof value !== 'string' || value === '') {
      problems.push({ file, path: name, reason: 'expected a non-empty string' });
    } else {
      values[name] = value;
    }
  }
  return problems.length ? { values: {}, problems } : { values, problems };
}

/**
 * The environment with the file's credentials under it: a variable set for this process wins, an
 * empty one does not (a launcher passes an optional setting the user left blank as '').
 */
export function withFileCredentials(env: Record<string, string | undefined>, file: Record<string, string> | undefined): Record<string, string | undefined> {
  if (!file) return env;
  const merged: Record<string, string | undefined> = { ...file };
  for (const [name, value] of Object.entries(env)) if (value !== '' || !(name in file)) merged[name] = value;
  return merged;
}
