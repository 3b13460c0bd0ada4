// The before-state step, and the inverse items when a change ends (the tool's `undo` declaration,
// tools/define.ts). The before-state is read after the decision and the guard, before the
// `executing` line: a change whose undo depends on it does not run without it (fail closed), and
// nothing has changed when it is refused. The inverse items go into the change record, which is
// where undo_change finds them (docs/undo.md).
import { AppError, toPublicError } from '../core/errors.js';
import { guestFileItems, type UndoItem } from '../core/undo-item.js';
import { deny, resolved, type Call, type Step } from './call.js';
import { ownText } from '../core/own-text.js';

export const recordBefore: Step = {
  name: 'before-state',
  skip: (call) => (!call.tool.undo?.before && !call.resolution?.guestPaths?.length ? 'the tool reads no before-state and touches no declared guest path' : undefined),
  async run(call) {
    const guestPaths = resolved(call).guestPaths;
    try {
      const read = call.tool.undo?.before ? await call.tool.undo.before(call.args, resolved(call), call.ctx) : { vms: [] };
      call.before = { ...read, ...(guestPaths?.length ? { guest_paths: guestPaths } : {}) };
    } catch (err) {
      const e = toPublicError(err);
      const reason = `The state before the change could not be read (${e.message}), so it could not be undone; the change was not made.`;
      return deny(call, {
        error: new AppError(e.code === 'cancelled' ? 'cancelled' : 'unreachable', reason, { retryable: true, hint: ownText('Nothing changed. Call again once vCenter answers.') }),
        decision: { reason, rule: 'undo:before-state' }, detail: { code: e.code }, strict: true,
      });
    }
    call.ctx.change?.note({ before: call.before });
    return undefined;
  },
};

/**
 * The items that undo the change, from its before-state and result (undefined: it failed after
 * `executing`, so part of it may have happened). Recorded on the change; never fails the change.
 */
export function noteInverse(call: Call, result: Record<string, unknown> | undefined): UndoItem[] | undefined {
  const rule = call.tool.undo;
  const files = call.before?.guest_paths ?? [];
  if (!rule && !files.length) return undefined;
  try {
    const own = rule ? rule.inverse({ args: call.args, resolution: resolved(call), before: call.before, result, safety: call.safety }) : [];
    const inverse = [...own, ...guestFileItems(files)];
    call.ctx.change?.note({ inverse });
    return inverse;
  } catch (err) {
    call.ctx.services.logger.error({ err: String(err), id: call.ctx.auditId }, 'the inverse of a change could not be derived; undo_change will say so');
    return undefined;
  }
}
