// Step 6, propose/confirm. A two-phase tool's first call stops here with a proposal (nothing has
// changed; the human confirms with its token). A confirmation continues past it, unless the
// target now requires the web dashboard and the confirmation came over MCP.
import { AppError, toPublicError } from '../core/errors.js';
import { isGuarded, isTwoPhaseUnder } from './define.js';
import { auditFailed, auditOf, changeTargetOf, decided, deny, isRead, LIFECYCLE_SKIP, resolved, type Call, type Step } from './pipeline-call.js';
import { guardVmsOf } from './pipeline-guard.js';
import { proposalOutput } from './proposal.js';
import { quoted } from './quote.js';

export const proposeOrConfirm: Step = {
  name: 'propose/confirm',
  skip: (call) => (call.tool.direct ? LIFECYCLE_SKIP
    : isRead(call) ? 'a read is never two-phase'
      : !isTwoPhaseUnder(call.tool, call.rules!) ? 'the tool is not two-phase' : undefined),
  run: (call) => (call.proposal ? confirmChannel(call) : propose(call)),
};

async function propose(call: Call) {
  const { tool, ctx, args } = call;
  const decision = decided(call);
  const target = changeTargetOf(call);
  const resolution = resolved(call);
  if (decision.requireWebApproval && !ctx.services.webUi.enabled) {
    const reason = `Target '${target.name}' requires approval in the web dashboard, and the dashboard is not enabled.`;
    return deny(call, {
      error: new AppError('approval_required', reason, { hint: 'Ask the operator to start the server with WEB_UI_ENABLED=true and WEB_UI_TOKEN set, then propose again. Nothing has changed.' }),
      decision: { reason, rule: decision.rule }, strict: true,
    });
  }
  if (decision.approval === 'second_person' && !ctx.principal) {
    const reason = `Policy requires a second person to confirm ${tool.name} on '${target.name}', which needs verified identities (central mode, --http with OAUTH_ISSUER).`;
    return deny(call, {
      error: new AppError('approval_required', reason, { hint: 'Run the server in central mode so a colleague can confirm, or ask the operator to change the approval in policy.yaml. Nothing has changed.' }),
      decision: { reason, rule: decision.rule }, strict: true,
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
  return { ok: true as const, value: proposalOutput(proposal, ctx.services.confirmations.ttlSeconds, ctx.services.confirmations.now(), ctx.services.webUi.url) };
}

/** Policy was decided again; a target that now requires web approval refuses an MCP confirmation. */
async function confirmChannel(call: Call) {
  const decision = decided(call);
  if (call.proposal!.via !== 'mcp' || !decision.requireWebApproval) return undefined;
  const target = changeTargetOf(call);
  const reason = `Target '${target.name}' now requires approval in the web dashboard; it cannot be confirmed over MCP.`;
  const pageOn = call.ctx.services.webUi.enabled;
  return deny(call, {
    error: new AppError('approval_required', reason, {
      retryable: false,
      hint: pageOn ? 'Ask the operator to approve it in the dashboard (Pending tab); it is still pending there.' : 'The dashboard is not enabled, so this proposal is closed; nothing changed.',
    }),
    target: target.name, decision: { reason, rule: decision.rule }, strict: true, keepPending: pageOn,
  });
}
