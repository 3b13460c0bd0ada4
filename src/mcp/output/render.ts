// Rendering, once for every tool. Results go out as structuredContent and as the same JSON in a
// text block (Claude Code shows the model only the structured part, Cursor only the text). Errors
// carry no structuredContent (clients would validate it against the output schema) but the same
// JSON error object in text, with code, retryable and a hint.
//
// Results and errors carry upstream text (VM names, annotations, fault messages, ...): both are
// fenced and marked as untrusted data the same way (untrusted.ts), so no part a client shows the
// model lets that text pass for the server's own words.
import { redactValues } from '../../core/redact.js';
import type { ToolOutcome } from '../../pipeline/call.js';
import type { ToolResult } from '../../tools/tool-result.js';
import { fenced, markOf, newFenceId, UNTRUSTED_META_KEY, withMark } from './untrusted.js';

export { UNTRUSTED_FENCE, UNTRUSTED_META_KEY, fenced, unfenced } from './untrusted.js';

export function render(outcome: ToolOutcome, secrets: readonly string[]): ToolResult {
  const fence = newFenceId();
  if (outcome.ok) {
    const plain = redactValues(outcome.value, secrets);
    const mark = markOf(plain, fence);
    const value = withMark(plain, mark);
    const result: ToolResult = {
      content: [{ type: 'text', text: fenced(JSON.stringify(value), fence) }], structuredContent: value, _meta: { [UNTRUSTED_META_KEY]: mark },
    };
    // A fan-out read whose every addressed target failed is an error to a generic client, with the
    // per-target detail kept (it still matches the output schema).
    if (everyTargetFailed(value)) result.isError = true;
    return result;
  }
  const error = redactValues(outcome.error, secrets);
  const mark = markOf({ error }, fence);
  return { isError: true, content: [{ type: 'text', text: fenced(JSON.stringify(withMark({ error }, mark)), fence) }], _meta: { [UNTRUSTED_META_KEY]: mark } };
}

function everyTargetFailed(value: Record<string, unknown>): boolean {
  const results = value.results;
  return Array.isArray(results) && results.length > 0 &&
    results.every((r) => typeof r === 'object' && r !== null && 'target' in r && 'error' in r && !('ok' in r));
}
