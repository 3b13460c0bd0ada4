// `zerto-rewind-mcp check`: runs every check against the configuration main.ts loaded (the same
// one the server would serve with, --lab included), prints the table or --json, and returns the
// exit code: 1 when any check failed, else 0 (warnings do not fail a run). Secrets known to the
// secret source are scrubbed from the output as a last line of defence; no check prints them.
import type { LoadedConfig } from '../config/load.js';
import { redactValues } from '../core/redact.js';
import type { SecretSource } from '../core/secrets.js';
import { VERSION } from '../version.js';
import { worstStatus, type CheckRow } from './check-result.js';
import { checkProcess } from './process-checks.js';
import { renderTable } from './render-table.js';
import { checkSite, checkTarget } from './subject-checks.js';

export interface CheckOptions {
  config: LoadedConfig;
  secrets: SecretSource;
  json: boolean;
  out: { write(s: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export async function collectChecks(config: LoadedConfig, secrets: SecretSource, env: Record<string, string | undefined> = {}): Promise<CheckRow[]> {
  // Subjects are independent; checking them in parallel keeps a run with a dead host short.
  const groups = await Promise.all([
    ...config.targets.map((t) => checkTarget(t, secrets)),
    ...config.app.sites.map((s) => checkSite(s, secrets)),
  ]);
  return [...groups.flat(), ...checkProcess(config, env)];
}

export async function runCheck(opts: CheckOptions): Promise<number> {
  const rows = redactValues(await collectChecks(opts.config, opts.secrets, opts.env), opts.secrets.knownValues());
  const status = worstStatus(rows);
  if (opts.json) {
    opts.out.write(`${JSON.stringify({ version: VERSION, ok: status !== 'fail', status, checks: rows }, null, 2)}\n`);
  } else {
    const colour = opts.out.isTTY === true && !opts.env.NO_COLOR;
    opts.out.write(renderTable(rows, colour));
  }
  return status === 'fail' ? 1 : 0;
}
