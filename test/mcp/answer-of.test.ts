// The tools/call answer for an outcome that asks a human (src/mcp/tool-handlers.ts answerOf): the
// input_required result when the client can show a form, on either era (the SDK elicits itself on
// a 2025-era connection), and the rendered error, which says what to do instead, when it cannot.
import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/mcp/tool-handlers.js';
import { render } from '../../src/mcp/output/render.js';
import type { ToolOutcome } from '../../src/pipeline/call.js';
import type { RequestingClient } from '../../src/tools/requesting-client.js';
import type { InputRequired } from '../../src/tools/tool-result.js';

const ask: InputRequired = {
  resultType: 'input_required',
  inputRequests: { approve: { method: 'elicitation/create', params: { message: 'Approve deleting snapshot "s1" of web-01?', requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } } } } } },
  requestState: 'opaque',
};
const outcome: ToolOutcome = {
  ok: false,
  error: { code: 'approval_required', message: 'A human must approve this change.', retryable: true, hint: 'Confirm it in the dashboard.' },
  inputRequired: ask,
};
const client = (era: RequestingClient['era'], form: boolean): RequestingClient => ({ era, elicitation: { form, url: false } });
const rendered = (o: ToolOutcome) => render(o, []);

describe('answerOf', () => {
  it('a 2026-07-28 client that can show a form gets the input_required result', () => {
    expect(answerOf(outcome, client('modern', true), rendered)).toBe(ask);
  });

  it('a 2025-era client that can elicit gets it too (the SDK asks with elicitation/create)', () => {
    expect(answerOf(outcome, client('legacy', true), rendered)).toBe(ask);
  });

  it('a client that cannot elicit gets the error with its hint, and no question', () => {
    const answer = answerOf(outcome, client('modern', false), rendered) as { isError?: boolean; content: Array<{ text: string }> };
    expect(answer.isError).toBe(true);
    expect(answer.content[0]!.text).toContain('approval_required');
    expect(answer.content[0]!.text).toContain('Confirm it in the dashboard.');
    expect(JSON.stringify(answer)).not.toContain('input_required');
  });

  it('a pending proposal that asks its approver (approval: human) goes out as the question; without a form, as the pending result', () => {
    const pending: ToolOutcome = { ok: true, value: { state: 'pending', note: 'NO CHANGES MADE YET.' }, inputRequired: ask };
    expect(answerOf(pending, client('modern', true), rendered)).toBe(ask);
    const shown = answerOf(pending, client('modern', false), rendered) as { isError?: boolean; structuredContent?: unknown };
    expect(shown.isError).not.toBe(true);
    expect(shown.structuredContent).toMatchObject({ state: 'pending' });
    expect(JSON.stringify(shown)).not.toContain('input_required');
  });

  it('an outcome that asks nothing is rendered as always, whatever the client can do', () => {
    const ok: ToolOutcome = { ok: true, value: { state: 'executed' } };
    expect(answerOf(ok, client('modern', true), rendered)).toMatchObject({ structuredContent: { state: 'executed' } });
  });
});
