// Validate the arguments against the tool's input schema, then resolve them to exact
// objects (the tool's resolve, or the `singleTarget` precondition answering `target: "all"`).
import { toPublicError } from '../core/errors.js';
import type { Resolution } from '../tools/define.js';
import { screenArguments } from '../tools/args.js';
import type { AuditRecord } from '../audit/audit-writer.js';
import { deny, invalidInput, type Call, type Step } from './call.js';
import { unknownArgsError } from './unknown-args.js';
import { targetRef } from '../tools/services.js';

export const validate: Step = {
  name: 'validate',
  skip: (call) => (call.proposal ? 'a confirmation continues a proposal whose arguments were validated when it was made' : undefined),
  async run(call) {
    // Depth and lone surrogates first (args.ts): a 5,000-level value must not reach the schema.
    // Then unknown argument names are refused before the schema would silently drop them.
    const screened = screenArguments(call.tool.name, call.rawArgs);
    const unknownArgs = screened ? undefined : unknownArgsError(call.tool.name, call.tool.input, call.rawArgs);
    const parsed = screened || unknownArgs ? undefined : call.tool.input.safeParse(call.rawArgs ?? {});
    if (!parsed?.success) {
      const error = screened ?? unknownArgs ?? invalidInput(call.tool.name, parsed!.error);
      return deny(call, { error, phase: 'failed', target: null, args: call.rawArgs, detail: { code: error.code, message: error.message } });
    }
    call.args = parsed.data as Record<string, unknown>;
    return undefined;
  },
};

/** Resolve, for a call whose lookup failure is audited in `phase` (a read's `call` line, a change's `failed` one). */
function resolveAuditedAs(phase: AuditRecord['phase']): Step {
  return {
    name: 'resolve',
    skip: (call) => (call.proposal ? 'a confirmation acts on the objects bound when it was proposed' : undefined),
    async run(call) {
      if (call.tool.singleTarget && call.args.target === 'all') {
        call.resolution = everyTarget(call);
        return undefined;
      }
      try {
        call.resolution = await call.tool.resolve!(call.args, call.ctx);
        return undefined;
      } catch (err) {
        const error = toPublicError(err);
        return deny(call, { error, phase, detail: { code: error.code, message: error.message } });
      }
    },
  };
}

export const resolveRead = resolveAuditedAs('call');
export const resolveChange = resolveAuditedAs('failed');

/**
 * `singleTarget` and `target: "all"`: the call names every target, without touching any of them,
 * so that the policy denies it (rule target-all) and the audit line records it as 'all'.
 */
function everyTarget(call: Call): Resolution {
  const targets = call.ctx.services.targets.map(targetRef);
  return { targets, targetIsAll: true, affected: [] };
}
