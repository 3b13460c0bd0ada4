// Propose/confirm. A two-phase tool's first call stops here with a proposal (nothing has
// changed). Who may approve it is policy's `approval`: the token holder (`single`), or a person
// (`human`: asked through the client when it can, else the dashboard; `dashboard`;
// `second_person`). A proposal no one could approve here is refused at once, saying what to enable.
// A confirmation continues past this step, unless the target now requires the web dashboard and
// the confirmation did not come from it.
import { AppError, toPublicError } from '../core/errors.js';
import { undoSentence } from '../core/approval-question.js';
import { levelsFor } from '../core/approval.js';
import { isGuarded, isTwoPhaseUnder } from '../tools/define.js';
import { auditFailed, auditOf, changeTargetOf, decided, deny, resolved, type Call, type Step } from './call.js';
import { guardVmsOf } from './guard-step.js';
import { proposalOutput } from './proposal.js';
import { quoted } from '../mcp/output/quote.js';
import { ownText } from '../core/own-text.js';

export const proposeOrConfirm: Step = {
  name: 'propose/confirm',
  skip: (call) => (!isTwoPhaseUnder(call.tool, call.rules!) ? 'the tool is not two-phase' : undefined),
  run: (call) => (call.proposal ? confirmChannel(call) : propose(call)),
};

async function propose(call: Call) {
  const { tool, ctx, args } = call;
  const decision = decided(call);
  const target = changeTargetOf(call);
  const resolution = resolved(call);
  if (decision.requireWebApproval && !ctx.services.webUi.enabled) {
    const reason = ownText(`Target '${target.name}' requires approval in the web dashboard, and the dashboard is not enabled.`);
    return deny(call, {
      error: new AppError('approval_required', reason, { hint: ownText('Ask the operator to start the server with WEB_UI_ENABLED=true and WEB_UI_TOKEN set, then propose again. Nothing has changed.') }),
      decision: { reason, rule: decision.rule }, strict: true,
    });
  }
  const nobody = nobodyCanApprove(call);
  if (nobody) {
    return deny(call, {
      error: new AppError('approval_required', nobody.reason, { hint: ownText(`${nobody.hint} Nothing has changed.`) }),
      decision: { reason: nobody.reason, rule: decision.rule }, strict: true,
    });
  }
  // The VPGs the human is told about; the guard decides again (and pins) at confirmation.
  const plan = decision.checkpoint === 'off' || !isGuarded(tool)
    ? []
    : await ctx.services.guard.plan(guardVmsOf(resolution), ctx.signal).then((p) => [...new Set(p.vpgs.map((v) => (v.kept_for ? `${v.vpg} (${v.kept_for})` : v.vpg)))]).catch(() => []);
  const proposal = await ctx.services.confirmations.create({
    tool: tool.name,
    target: { name: target.name, host: target.host },
    summary: resolution.summary ?? `${tool.name} on target ${quoted(target.name)}`,
    affected: resolution.affected,
    checkpointVpgs: plan,
    undo: undoSentence({
      checkpointVpgs: plan, safetySnapshot: tool.safetySnapshot !== undefined && decision.autoSnapshotBeforeDestroy, dryRun: call.dryRun,
      ...(tool.undo ? { undoChange: typeof tool.undo.how === 'string' ? tool.undo.how : tool.undo.how(args) } : {}),
    }),
    requester: ctx.identity,
    requiresWebApproval: decision.requireWebApproval,
    approval: decision.approval,
    auditId: ctx.auditId,
    payload: { tool, args, resolution },
  });
  try {
    await auditOf(call)({
      target: target.name, phase: 'proposed', args, proposal_id: proposal.id,
      decision: { allowed: decision.allowed, reason: decision.reason, rule: decision.rule }, detail: { summary: proposal.summary, dry_run: call.dryRun },
    });
  } catch (err) {
    // A proposal that is not in the audit log must not be confirmable.
    await Promise.resolve(ctx.services.confirmations.cancelById(proposal.id, 'audit-failure')).catch(() => undefined);
    return { ok: false as const, error: toPublicError(auditFailed(err)) };
  }
  if (decision.approval === 'human' && ctx.askHuman?.mode) call.askAbout = proposal;
  return { ok: true as const, value: proposalOutput(proposal, ctx.services.confirmations.ttlSeconds, ctx.services.confirmations.now(), ctx.services.webUi.url) };
}

/** Why nobody could approve this proposal on this server and connection (undefined: someone can). */
function nobodyCanApprove(call: Call): { reason: string; hint: string } | undefined {
  const { tool, ctx } = call;
  const level = decided(call).approval;
  const target = changeTargetOf(call).name;
  const dashboard = ctx.services.webUi.enabled;
  const startDashboard = 'start the dashboard (WEB_UI_ENABLED=true with WEB_UI_TOKEN set)';
  const orSingle = "or, to let the agent confirm it itself, set approval: single for it in policy.yaml";
  if (level === 'human' && !dashboard && ctx.askHuman?.mode !== 'form') {
    return {
      reason: ownText(`Policy gives the approval of ${tool.name} on '${target}' to a person (approval: human), and this client cannot ask them (no MCP form elicitation) and no dashboard runs.`),
      hint: ownText(`Use a client that can ask (Claude Code, VS Code, Cursor), or ${startDashboard}, ${orSingle}.`),
    };
  }
  if (level === 'dashboard' && !dashboard) {
    return { reason: ownText(`Policy gives the approval of ${tool.name} on '${target}' to a person in the dashboard (approval: dashboard), and the dashboard is not enabled.`), hint: ownText(`Ask the operator to ${startDashboard}, ${orSingle}.`) };
  }
  if (level === 'second_person' && !ctx.principal) {
    return {
      reason: ownText(`Policy requires a second person to confirm ${tool.name} on '${target}', which needs verified identities (central mode, --http with OAUTH_ISSUER).`),
      hint: ownText('Run the server in central mode so a colleague can confirm, or ask the operator to change the approval in policy.yaml.'),
    };
  }
  if (level === 'second_person' && !dashboard && (call.rules?.service_approvers.length ?? 0) === 0) {
    return { reason: ownText(`Policy requires a second person to confirm ${tool.name} on '${target}', and no dashboard runs where a colleague could sign in and confirm it.`), hint: ownText(`Ask the operator to ${startDashboard} with OIDC sign-in.`) };
  }
  return undefined;
}

/** Policy was decided again; a target that now requires web approval refuses any other confirmation. */
async function confirmChannel(call: Call) {
  const decision = decided(call);
  const { approver } = call.proposal!;
  if (!levelsFor(approver).includes(decision.approval)) {
    // The policy got stricter since the proposal was made: this approver no longer suffices.
    const reason = `Policy now gives the approval of ${call.tool.name} to ${decision.approval === 'second_person' ? 'a second person' : 'a person'} (approval: ${decision.approval}); this ${approver.channel === 'mcp' ? 'confirm_action' : 'approval'} does not count.`;
    const pageOn = call.ctx.services.webUi.enabled;
    return deny(call, {
      error: new AppError('approval_required', reason, { retryable: false, hint: ownText(pageOn ? 'Ask the user to approve it in the dashboard; it is still pending there.' : 'No dashboard runs, so this proposal is closed; nothing changed.') }),
      target: changeTargetOf(call).name, decision: { reason, rule: decision.rule }, strict: true, keepPending: pageOn,
    });
  }
  if (approver.channel === 'web' || !decision.requireWebApproval) return undefined;
  const target = changeTargetOf(call);
  const reason = `Target '${target.name}' now requires approval in the web dashboard; it cannot be confirmed over MCP.`;
  const pageOn = call.ctx.services.webUi.enabled;
  return deny(call, {
    error: new AppError('approval_required', reason, {
      retryable: false,
      hint: ownText(pageOn ? 'Ask the operator to approve it in the dashboard (Pending tab); it is still pending there.' : 'The dashboard is not enabled, so this proposal is closed; nothing changed.'),
    }),
    target: target.name, decision: { reason, rule: decision.rule }, strict: true, keepPending: pageOn,
  });
}
