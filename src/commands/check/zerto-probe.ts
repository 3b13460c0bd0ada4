// `check --zerto`: a read-only probe of each configured ZVM. It calls every read route the product
// uses, with the queries it uses, and compares each answer with the zod schema the client applies
// (src/zerto/schemas.ts), naming each member that is missing or of another type. Routes that
// change the ZVM (a tagged insert, an FLR mount, browse, download, unmount) are never called:
// the rows say so. Each answer's shape (member names and value kinds, no data) can go into a
// support bundle (support-bundle.ts), so the first real ZVM teaches the project its shapes.

import type { z } from 'zod';
import type { ZertoSiteEntry } from '../../config/app-config.js';
import { toPublicError } from '../../core/errors.js';
import type { SecretSource } from '../../core/secrets.js';
import {
  Checkpoint, CheckpointStats, FlrSession, LocalSite, PeerSite, PointInTime, Task, VmRow, Vpg,
} from '../../zerto/schemas.js';
import { withSiteDefaults, ZvmClient } from '../../zerto/index.js';
import { row, type CheckRow } from './check-result.js';

const TIMEOUT_MS = 20_000;
/** A list's first rows are enough to see its shape; every row is still checked. */
const SAMPLE_ROWS = 3;

export interface ProbedRoute {
  route: string;
  /** `ok`: every answer fits; `mismatch`: named below; `error`: the call failed; `skipped`: nothing to ask about. */
  outcome: 'ok' | 'mismatch' | 'error' | 'skipped';
  issues: string[];
  /** The raw answer (or its first rows): support-bundle.ts reduces it to a shape before it leaves. */
  sample?: unknown;
  rows?: number;
}

export interface SiteProbe {
  site: string;
  routes: ProbedRoute[];
}

interface RouteSpec {
  route: string;
  path: string;
  query?: Record<string, string | undefined>;
  /** The schema of the answer, or of each row when `list`. */
  schema: z.ZodType;
  list?: boolean;
}

/** Routes the product calls that change the ZVM: never probed. */
export const NOT_PROBED = ['POST /v1/vpgs/{id}/checkpoints', 'POST /v1/flrs', 'POST /v1/flrs/{id}/browse', 'POST /v1/flrs/{id}/download', 'DELETE /v1/flrs/{id}'];

export async function probeSite(s: ZertoSiteEntry, secrets: SecretSource): Promise<SiteProbe> {
  const client = new ZvmClient({ site: withSiteDefaults({ ...s }), secrets, requestTimeoutMs: TIMEOUT_MS });
  const routes: ProbedRoute[] = [];
  const ask = async (spec: RouteSpec): Promise<unknown> => {
    const { probed, answer } = await probeRoute(client, spec);
    routes.push(probed);
    return answer;
  };
  try {
    await ask({ route: 'GET /v1/localsite', path: '/v1/localsite', schema: LocalSite });
    await ask({ route: 'GET /v1/peersites', path: '/v1/peersites', schema: PeerSite, list: true });
    const vms = await ask({ route: 'GET /v1/vms', path: '/v1/vms', schema: VmRow, list: true });
    await ask({ route: 'GET /v1/vpgs', path: '/v1/vpgs', schema: Vpg, list: true });
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const vm = firstRow(vms);
    const vpgId = field(vm, 'VpgIdentifier');
    const vmId = field(vm, 'VmIdentifier');
    if (vpgId && vmId) {
      await ask({ route: 'GET /v1/vpgs/{id}', path: `/v1/vpgs/${encodeURIComponent(vpgId)}`, schema: Vpg });
      await ask({ route: 'GET /v1/vpgs/{id}/checkpoints', path: `/v1/vpgs/${encodeURIComponent(vpgId)}/checkpoints`, query: { startDate: hourAgo }, schema: Checkpoint, list: true });
      await ask({ route: 'GET /v1/vpgs/{id}/checkpoints/stats', path: `/v1/vpgs/${encodeURIComponent(vpgId)}/checkpoints/stats`, schema: CheckpointStats });
      await ask({ route: 'GET /v1/vms/{id}/pointsInTime', path: `/v1/vms/${encodeURIComponent(vmId)}/pointsInTime`, query: { vpgIdentifier: vpgId, startDate: hourAgo }, schema: PointInTime, list: true });
    } else {
      for (const r of ['GET /v1/vpgs/{id}', 'GET /v1/vpgs/{id}/checkpoints', 'GET /v1/vpgs/{id}/checkpoints/stats', 'GET /v1/vms/{id}/pointsInTime']) {
        routes.push({ route: r, outcome: 'skipped', issues: ['no protected VM listed to ask about'] });
      }
    }
    await ask({ route: 'GET /v1/flrs', path: '/v1/flrs', schema: FlrSession, list: true });
    const tasks = await ask({ route: 'GET /v1/tasks', path: '/v1/tasks', schema: Task, list: true });
    const taskId = field(firstRow(tasks), 'TaskIdentifier');
    if (taskId) await ask({ route: 'GET /v1/tasks/{id}', path: `/v1/tasks/${encodeURIComponent(taskId)}`, schema: Task });
    else routes.push({ route: 'GET /v1/tasks/{id}', outcome: 'skipped', issues: ['the ZVM lists no task to read'] });
  } finally {
    await client.close();
  }
  return { site: s.name, routes };
}

async function probeRoute(client: ZvmClient, spec: RouteSpec): Promise<{ probed: ProbedRoute; answer: unknown }> {
  let answer: unknown;
  try {
    answer = await client.probeGet(spec.path, spec.query ?? {}, AbortSignal.timeout(TIMEOUT_MS));
  } catch (err) {
    const e = toPublicError(err);
    return { probed: { route: spec.route, outcome: 'error', issues: [`${e.code}: ${e.message}`] }, answer: undefined };
  }
  if (!spec.list) {
    const issues = mismatches(spec.schema, answer);
    return { probed: { route: spec.route, outcome: issues.length ? 'mismatch' : 'ok', issues, sample: answer }, answer };
  }
  if (!Array.isArray(answer)) {
    return { probed: { route: spec.route, outcome: 'mismatch', issues: [`expected an array, got ${kind(answer)}`], sample: answer }, answer };
  }
  const issues = new Set<string>();
  let bad = 0;
  for (const [i, r] of answer.entries()) {
    const found = mismatches(spec.schema, r);
    if (found.length) bad++;
    if (bad <= SAMPLE_ROWS) for (const f of found) issues.add(`row ${i}: ${f}`);
  }
  if (bad > SAMPLE_ROWS) issues.add(`${bad} of ${answer.length} rows differ in all (the client skips such rows)`);
  return { probed: { route: spec.route, outcome: issues.size ? 'mismatch' : 'ok', issues: [...issues], sample: answer.slice(0, SAMPLE_ROWS), rows: answer.length }, answer };
}

/** Each zod issue as `Member.Path: what was wrong`, e.g. `Status.State: expected number, received string`. */
function mismatches(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(answer)'}: ${i.message}`);
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function firstRow(answer: unknown): unknown {
  return Array.isArray(answer) ? answer[0] : undefined;
}

/** A member of a raw row, matched case-insensitively as the schemas do. */
function field(rowValue: unknown, name: string): string | undefined {
  if (!rowValue || typeof rowValue !== 'object') return undefined;
  const hit = Object.entries(rowValue as Record<string, unknown>).find(([k]) => k.toLowerCase() === name.toLowerCase());
  return typeof hit?.[1] === 'string' || typeof hit?.[1] === 'number' ? String(hit[1]) : undefined;
}

/** The probe as check rows: one per route, a mismatch a warning (the client may still cope), a failed call a failure. */
export function probeRows(p: SiteProbe): CheckRow[] {
  const subject = `zerto ${p.site}`;
  const rows = p.routes.map((r) => {
    if (r.outcome === 'ok') return row(subject, r.route, 'ok', r.rows === undefined ? 'answer fits the expected shape' : `${r.rows} row(s) fit the expected shape`);
    if (r.outcome === 'skipped') return row(subject, r.route, 'skip', `not checked: ${r.issues.join('; ')}`);
    if (r.outcome === 'error') return row(subject, r.route, 'fail', r.issues.join('; '), 'Check the site\'s URL, credentials and the ZVM version; run plain `check` for connectivity.');
    return row(subject, r.route, 'warn', `differs from the expected shape: ${r.issues.join('; ')}`,
      'Run `check --zerto --bundle FILE` and attach FILE (names and ids are hashed, no secrets) to a bug report.');
  });
  rows.push(row(subject, 'not probed', 'skip', `routes that change the ZVM are never called by the probe: ${NOT_PROBED.join(', ')}`));
  return rows;
}
