// The words a person approves: one function builds them for the client's question (elicitation)
// and for the dashboard, so both show the same text byte for byte. It names the target with its
// host, every object with its moid, the VPGs that get a checkpoint first, and what undo will be
// possible. Names come from upstream (vCenter), so they are JSON-quoted: a VM named with a newline
// cannot add a line of its own to the question.
import type { Proposal } from './confirmation-store.js';

export type QuestionSource = Pick<Proposal, 'tool' | 'target' | 'summary' | 'affected' | 'checkpointVpgs' | 'undo' | 'requester'>;

export function approvalQuestion(p: QuestionSource): string {
  const objects = p.affected.length
    ? p.affected.map((o) => `  - ${o.type} ${JSON.stringify(o.name)}${typeof o.moid === 'string' ? ` (${o.moid})` : ''}`)
    : ['  (none named)'];
  return [
    `Approve ${p.tool} on target ${JSON.stringify(p.target.name)} (${p.target.host})?`,
    `Requested by: ${p.requester}`,
    `What: ${p.summary}`,
    'Objects:',
    ...objects,
    `Zerto checkpoint first on: ${p.checkpointVpgs.length ? p.checkpointVpgs.map((v) => JSON.stringify(v)).join(', ') : 'none'}`,
    `Undo: ${p.undo || 'not stated'}`,
  ].join('\n');
}

/** What undo will be possible, from what the pipeline does before the change. */
export function undoSentence(opts: { checkpointVpgs: string[]; safetySnapshot: boolean; dryRun: boolean; undoChange?: string }): string {
  if (opts.dryRun) return 'nothing to undo: this is a dry run, nothing will change.';
  const ways = [
    // What the tool's undo declaration records before it runs (tools/define.ts, UndoRule).
    ...(opts.undoChange ? [`undo_change(change_id): ${opts.undoChange}`] : []),
    ...(opts.safetySnapshot ? ['revert each VM to the safety snapshot taken just before the change'] : []),
    ...(opts.checkpointVpgs.length ? [`recover from the tagged Zerto checkpoint pinned on ${opts.checkpointVpgs.map((v) => JSON.stringify(v)).join(', ')} just before the change`] : []),
  ];
  return ways.length ? `${ways.join('; or ')}.` : 'none: nothing taken beforehand can bring back what this changes.';
}
