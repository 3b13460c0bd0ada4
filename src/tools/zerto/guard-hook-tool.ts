// zerto_guard_hook: the guard as Claude Code's PreToolUse hook calls it (a hook of type `mcp_tool`
// on another server's tools, deploy/claude-code-hooks.json), which makes the advisory
// zerto_guard_before_mutate an enforced step where the gateway is not used. It runs that same
// guard (its exported handlers: one guard, audited under this tool's name) and answers with the
// hook decision document Claude Code parses from the tool's text:
// - catalogued tool, checkpoint pinned (or an unlisted tool): no permissionDecision, so the user's
//   own permission rules and prompts still apply ("allow" would skip them); a pinned tag goes in
//   additionalContext, for the undo;
// - any refusal or failure (policy, ZVM down, VM not found, bad input): "deny" with the reason;
// - a dry run: "ask", since nothing was pinned but the other server's change would be real.
// Claude Code treats a hook tool's error result as a non-blocking error and runs the call, so a
// failure is never an error result here: it is a denial (present, below).
import { z } from 'zod';
import type { ToolResult } from '../tool-result.js';
import { AppError } from '../../core/errors.js';
import { redactValues } from '../../core/redact.js';
import { defineTool, type CallContext } from '../define.js';
import type { ToolOutcome } from '../../pipeline/call.js';
import { UNTRUSTED_META_KEY, type UntrustedMark } from '../../mcp/output/untrusted.js';
import { dryRunGuard, executeGuard, guardPins, resolveGuard, type GuardArgs, type GuardLookup, type GuardResult } from './guard-tool.js';
import type { ZertoResolution } from './zerto-common.js';
import { ownText } from '../../core/own-text.js';

const NAME = 'zerto_guard_hook';

const HookOutput = z.object({
  hookEventName: z.literal('PreToolUse'),
  permissionDecision: z.enum(['deny', 'ask']).optional().describe('Absent: no objection (the user\'s permission rules still apply).'),
  permissionDecisionReason: z.string().optional(),
  additionalContext: z.string().optional(),
});
type Decision = { hookSpecificOutput: z.infer<typeof HookOutput> };

/** The resolution, with the guard's own arguments as this call mapped them. */
type HookResolution = ZertoResolution<GuardLookup> & { hook: GuardArgs };

export const zertoGuardHook = defineTool({
  name: NAME,
  title: 'Claude Code PreToolUse hook: guard another server\'s call',
  description:
    "For Claude Code's PreToolUse hook (type mcp_tool), not for agents: runs zerto_guard_before_mutate's guard on the hooked call and answers a hook decision (deny on any failure).",
  category: 'mutate',
  // Its own set, off by default: the hook calls it, the model never needs it in its context.
  toolset: 'hooks',
  idempotent: false,
  guard: { pins: (_args, resolution: HookResolution, ctx) => guardPins(resolution.hook, resolution, ctx) },
  input: z.object({
    tool_name: z.string().min(1).max(300).describe('${tool_name}: mcp__<server>__<tool>.'),
    tool_input: z.union([z.record(z.string(), z.unknown()), z.string().max(1_000_000)]).default({}).describe('${tool_input}: the call\'s arguments, an object or its JSON.'),
  }),
  output: z.object({ hookSpecificOutput: HookOutput }),
  async resolve(args, ctx): Promise<HookResolution> {
    const hook = await guardArgsOf(args.tool_name, args.tool_input, ctx);
    return { ...(await resolveGuard(hook, ctx)), hook };
  },
  async execute(args, resolution, ctx) {
    return decisionOf(await executeGuard(resolution.hook, resolution, ctx), args.tool_name);
  },
  async dryRun(args, resolution, ctx) {
    const planned = await dryRunGuard(resolution.hook, resolution, ctx);
    if (!planned.guarded) return noObjection();
    return decision('ask', `zerto-rewind runs in dry-run mode, so no checkpoint was pinned before '${args.tool_name}' (it would be: ${planned.message}). The change itself would be real: ask the user.`);
  },
  present,
});

/**
 * The guard's arguments for a hooked call. The catalog names a tool as the agent calls it, so the
 * first of these that is catalogued (or is a tool behind this server's gateway) is the one guarded:
 * `mcp__ssh__exec` as Claude Code names it, then `ssh/exec`, `ssh__exec` and `exec`.
 */
async function guardArgsOf(toolName: string, toolInput: Record<string, unknown> | string, ctx: CallContext): Promise<GuardArgs> {
  const args = typeof toolInput === 'string' ? parseInput(toolInput) : toolInput;
  const m = /^mcp__(.+?)__(.+)$/.exec(toolName);
  const candidates = m ? [toolName, `${m[1]}/${m[2]}`, `${m[1]}__${m[2]}`, m[2]!] : [toolName];
  for (const name of candidates) {
    if (ctx.services.ext.downstream?.serverOf(name) || (await ctx.services.ext.catalog?.find(name))) return { tool: name, args };
  }
  return { tool: toolName, args };
}

function parseInput(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AppError('invalid_input', ownText('tool_input is a string that is not the JSON of an object, so the guard cannot read the VM it names.'), {
      hint: ownText('In the hook\'s input, pass "tool_input": "${tool_input}" (Claude Code substitutes the call\'s arguments).'),
    });
  }
  return parsed as Record<string, unknown>;
}

function decisionOf(result: GuardResult, toolName: string): Decision {
  if (!result.guarded) return noObjection();
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      additionalContext: `zerto-rewind pinned a Zerto checkpoint before '${toolName}' (tag ${(result.tags ?? []).map((t) => `'${t}'`).join(', ')}); to undo a file change, call zerto_recover_file with that tag.`,
    },
  };
}

function noObjection(): Decision {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse' } };
}

function decision(kind: 'deny' | 'ask', reason: string): Decision {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: kind, permissionDecisionReason: reason } };
}

/**
 * The decision as bare JSON text, as Claude Code parses a hook's output; anything but a decision
 * this tool made (a policy denial, a bad argument, a proposal a policy asked for) is a denial. The
 * text cannot be fenced (it would no longer parse), so the upstream fields (VM names, ZVM messages
 * inside the reasons) are named in _meta alone.
 */
function present(outcome: ToolOutcome, secrets: readonly string[]): ToolResult {
  const made = outcome.ok ? (outcome.value.hookSpecificOutput as Decision['hookSpecificOutput'] | undefined) : undefined;
  let doc: Decision;
  if (made) doc = { hookSpecificOutput: made };
  else if (!outcome.ok) {
    const e = outcome.error;
    doc = decision('deny', `zerto-rewind's guard stopped this call (${e.code}): ${e.message}${e.hint ? ` ${e.hint}` : ''} Do not make this change another way without asking the user.`);
  } else {
    doc = decision('deny', `zerto-rewind's guard did not pin a checkpoint (${String(outcome.value.message ?? 'it ended without a decision')}), so this call is stopped. Ask the user.`);
  }
  const safe = redactValues(doc, secrets);
  return {
    content: [{ type: 'text', text: JSON.stringify(safe) }],
    structuredContent: safe,
    _meta: { [UNTRUSTED_META_KEY]: upstreamFields(safe) },
  };
}

/** The reason and the context quote VM names, tags and vendor messages; the other fields are this tool's enums. */
function upstreamFields(doc: Decision): UntrustedMark {
  const fields = (['permissionDecisionReason', 'additionalContext'] as const).filter((k) => doc.hookSpecificOutput[k] !== undefined);
  // No fence: the text is bare JSON, which Claude Code parses as the hook's decision.
  return { fence: '', fields: fields.map((k) => `hookSpecificOutput.${k}`) };
}
