// `zerto-rewind-mcp check`: runs every check against the configuration main.ts loaded (the same
// one the server would serve with, --lab included), prints the table or --json, and returns the
// exit code: 1 when any check failed, else 0 (warnings do not fail a run). Secrets known to the
// secret source are scrubbed from the output as a last line of defence; no check prints them.
import type { LoadedConfig } from '../../config/load.js';
import { toPublicError } from '../../core/errors.js';
import { redactValues } from '../../core/redact.js';
import type { SecretSource } from '../../core/secrets.js';
import { VERSION } from '../../core/version.js';
import { row, worstStatus, type CheckRow } from './check-result.js';
import { buildBundle, writeBundle } from './support-bundle.js';
import { probeRows, probeSite } from './zerto-probe.js';
import { checkProcess } from './process-checks.js';
import { renderTable } from './render-table.js';
import { checkSite, checkTarget } from './subject-checks.js';

export interface CheckOptions {
  config: LoadedConfig;
  secrets: SecretSource;
  json: boolean;
  out: { write(s: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** `--zerto`: only the read-only probe of each configured ZVM (zerto-probe.ts). */
  zerto?: boolean;
  /** `--bundle FILE` (with --zerto): the redacted support bundle goes there. */
  bundle?: string | undefined;
}

export async function collectChecks(config: LoadedConfig, secrets: SecretSource, env: Record<string, string | undefined> = {}): Promise<CheckRow[]> {
  // Subjects are independent; checking them in parallel keeps a run with a dead host short.
  const groups = await Promise.all([
    ...config.targets.map((t) => checkTarget(t, secrets)),
    ...config.app.sites.map((s) => checkSite(s, secrets)),
  ]);
  return [...groups.flat(), ...checkProcess(config, env)];
}

/** The `--zerto` probe of every configured site, in parallel; with `bundle`, the support bundle too. */
export async function collectZertoProbe(config: LoadedConfig, secrets: SecretSource, bundle?: string): Promise<CheckRow[]> {
  const sites = config.app.sites;
  if (sites.length === 0) return [row('zerto', 'sites', 'fail', 'no Zerto site is configured', 'Add sites[] to config.json (ZERTO_REWIND_CONFIG), or run with --lab.')];
  const probes = await Promise.all(sites.map((s) => probeSite(s, secrets)));
  const rows = probes.flatMap(probeRows);
  if (bundle) {
    const names = sites.flatMap((s) => [s.name, s.url, new URL(s.url).host]);
    try {
      await writeBundle(bundle, buildBundle(probes, { secrets: secrets.knownValues(), names }));
      rows.push(row('zerto', 'bundle', 'ok', `support bundle written to ${bundle} (names and ids hashed, no secrets)`));
    } catch (err) {
      const e = toPublicError(err);
      rows.push(row('zerto', 'bundle', 'fail', e.message, e.hint ?? 'Name a new file.'));
    }
  }
  return rows;
}

export async function runCheck(opts: CheckOptions): Promise<number> {
  const collected = opts.zerto ? await collectZertoProbe(opts.config, opts.secrets, opts.bundle) : await collectChecks(opts.config, opts.secrets, opts.env);
  const rows = redactValues(collected, opts.secrets.knownValues());
  const status = worstStatus(rows);
  if (opts.json) {
    opts.out.write(`${JSON.stringify({ version: VERSION, ok: status !== 'fail', status, checks: rows }, null, 2)}\n`);
  } else {
    const colour = opts.out.isTTY === true && !opts.env.NO_COLOR;
    opts.out.write(renderTable(rows, colour));
  }
  return status === 'fail' ? 1 : 0;
}
