// At startup: FLR sessions an earlier server process mounted and never ended (it was killed or
// crashed mid-restore) are ended, because nobody else will: the session registry names the
// process that opened each one, and a process that is gone cannot unmount it. Each unmount is
// audited as a change of this server's own: an `executing` line (on disk first), then `executed`
// or `failed`. Not put to the policy: ending a mount this server opened is cleanup, as at shutdown.
// A session whose unmount fails stays recorded; the next start tries again, and
// zerto_list_flr_sessions shows it as orphaned meanwhile. A process killed while its mount request
// was out left only that request's record: the session is looked up by it first.
import { randomUUID } from 'node:crypto';
import type { AuditDecision, AuditSink } from '../../audit/audit-writer.js';
import { SERVER_IDENTITY } from '../../audit/server-lines.js';
import type { Logger } from '../../core/logger.js';
import { sweepIncompleteFiles } from '../../state/files/safe-write.js';
import type { ZertoServices } from '../../zerto/zerto-services.js';
import type { FlrSessionRegistry, StoredFlrSession, UnmountReport } from '../../zerto/index.js';

const DECISION: AuditDecision = {
  allowed: true,
  reason: 'an FLR session this server mounted, left by a server process that ended: ended at startup (as at shutdown)',
  rule: null,
};

export interface EndedOrphan {
  site: string;
  session_id: string;
  report: UnmountReport;
}

/**
 * `stop` (the server is shutting down): no further session is started on, and the one being
 * ended stops waiting for its unmount task (its DELETE still completes, and is audited). What is
 * left stays recorded for the next start.
 */
export async function endOrphanedFlrSessions(
  registry: FlrSessionRegistry, audit: AuditSink, logger: Logger, opts: { waitMs?: number; stop?: AbortSignal } = {},
): Promise<EndedOrphan[]> {
  const ended: EndedOrphan[] = [];
  for (const left of await registry.leftovers()) {
    if (opts.stop?.aborted) {
      logger.info({ site: left.site, session_id: left.session_id }, 'shutting down: an FLR session left by an earlier run is left for the next start');
      continue;
    }
    let s = left;
    let matched: Record<string, unknown> | undefined;
    if (left.mount_requested) {
      const found = await sessionOfRequest(registry, left, logger);
      if (!found) continue;
      s = found;
      matched = { matched_by: 'the earlier run died before the ZVM answered its mount request: the one session of that VM, VPG and checkpoint mounted when it was requested', requested_at: left.opened_at };
    }
    const id = randomUUID();
    const base = {
      id, target: s.site, tool: 'zerto_end_flr_session', identity: SERVER_IDENTITY,
      args: { site: s.site, session_id: s.session_id }, decision: DECISION,
    };
    const about = {
      session_id: s.session_id, reason: 'orphaned', vm: s.vm, vpg: s.vpg, checkpoint_id: s.checkpoint_id,
      opened_at: s.opened_at, left_by: { pid: s.owner.pid, instance: s.owner.instance }, ...(matched ?? {}),
    };
    try {
      // Fail closed: no unmount without its line on disk.
      await audit.write({ ...base, phase: 'executing', detail: about });
    } catch (err) {
      logger.warn({ site: s.site, session_id: s.session_id, err: String(err) }, 'FLR session left by an earlier run not ended: the audit log cannot be written');
      continue;
    }
    const report = await registry.unmount(s.site, s.session_id, { waitMs: opts.waitMs ?? 30_000, ...(opts.stop ? { stopWaiting: opts.stop } : {}) });
    const failed = report.status === 'failed';
    await audit.write({
      ...base, phase: failed ? 'failed' : 'executed',
      detail: { ...about, status: report.status, ...(report.task_id ? { task_id: report.task_id } : {}), ...(report.message ? { message: report.message } : {}), ...(failed ? { code: 'flr_unmount_failed' } : {}) },
    }).catch((err) => logger.error({ err: String(err) }, 'audit write failed for an FLR orphan unmount'));
    if (failed) logger.warn({ site: s.site, session_id: s.session_id, message: report.message }, 'FLR session left by an earlier run could not be ended; end it with zerto_end_flr_session');
    else logger.info({ site: s.site, session_id: s.session_id, vm: s.vm, left_by_pid: s.owner.pid }, 'ended an FLR session left mounted by an earlier run');
    ended.push({ site: s.site, session_id: s.session_id, report });
  }
  return ended;
}

/**
 * A dead process's mount request: the ZVM may have mounted and never said which session it was.
 * Found by VM, VPG, checkpoint and mount time (FlrSessionRegistry.resolveMountRequest), or
 * undefined, logged: nothing was mounted, it cannot be told which, or the ZVM cannot be asked now.
 */
async function sessionOfRequest(registry: FlrSessionRegistry, request: StoredFlrSession, logger: Logger): Promise<StoredFlrSession | undefined> {
  const about = { site: request.site, vm: request.vm, checkpoint_id: request.checkpoint_id };
  const found = await registry.resolveMountRequest(request).catch((err: unknown) => ({ failed: String(err) }));
  if ('session' in found) return found.session;
  if ('failed' in found) logger.warn({ ...about, err: found.failed }, 'a mount request left by an earlier run could not be looked up; the next start tries again');
  else if ('none' in found) logger.info(about, 'a mount request left by an earlier run mounted nothing');
  else {
    logger.warn({ ...about, sessions: found.ambiguous },
      'an earlier run died with a mount request out and several FLR sessions of that VM and checkpoint exist: none is ended on a guess; check them with zerto_list_flr_sessions');
  }
  return undefined;
}

/**
 * Startup's cleanup after an earlier run, in the background: once the audit log has closed what
 * that run left open (`closed`), end its orphaned FLR sessions and remove the temp files of
 * restores it was writing when it died. Never rejects: problems are logged. `stop` (shutdown)
 * cuts it short, so a stop right after a start does not wait on a slow ZVM for every orphan.
 */
export async function cleanUpAfterEarlierRun(
  zerto: Pick<ZertoServices, 'flrSessions' | 'restoreDir'>, audit: AuditSink, closed: Promise<unknown>, logger: Logger, stop?: AbortSignal,
): Promise<void> {
  await closed.catch(() => undefined);
  await endOrphanedFlrSessions(zerto.flrSessions, audit, logger, { waitMs: 10_000, ...(stop ? { stop } : {}) })
    .catch((err) => logger.warn({ err: String(err) }, 'could not end the FLR sessions an earlier run left mounted'));
  await sweepIncompleteFiles(zerto.restoreDir).then(
    (n) => { if (n) logger.warn({ restore_dir: zerto.restoreDir, removed: n }, 'removed files an earlier run left half-written in restore_dir'); },
    (err) => logger.warn({ err: String(err) }, 'could not sweep restore_dir for half-written files'),
  );
}
