// One row of `zerto-rewind-mcp check`: what was checked, for which subject, how it went and, when
// it did not go well, what to change. Rows are plain data so the table and --json render the same.

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckRow {
  /** `target lab-vc1`, `site lab-site-a`, `process`. */
  subject: string;
  /** dns, tcp, tls, login, api_version, clock, audit_log, policy, dashboard_token, restore_dir. */
  check: string;
  status: CheckStatus;
  detail: string;
  /** What to change, in words a person can act on; present on every warn and fail. */
  fix?: string;
}

export function row(subject: string, check: string, status: CheckStatus, detail: string, fix?: string): CheckRow {
  return fix === undefined ? { subject, check, status, detail } : { subject, check, status, detail, fix };
}

/** A check that could not run because an earlier one failed (no TCP, no TLS to inspect). */
export function skipped(subject: string, check: string, because: string): CheckRow {
  return row(subject, check, 'skip', `not checked: ${because}`);
}

export function worstStatus(rows: CheckRow[]): CheckStatus {
  if (rows.some((r) => r.status === 'fail')) return 'fail';
  if (rows.some((r) => r.status === 'warn')) return 'warn';
  return 'ok';
}
