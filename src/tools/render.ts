// Rendering, once for every tool. Results go out as structuredContent and as the same JSON in a
// text block (Claude Code shows the model only the structured part, Cursor only the text). Errors
// carry no structuredContent (clients would validate it against the output schema) but the same
// JSON error object in text, with code, retryable and a hint.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { redactValues } from '../core/redact.js';
import type { ToolOutcome } from './pipeline-call.js';

export function render(outcome: ToolOutcome, secrets: readonly string[]): CallToolResult {
  if (outcome.ok) {
    const value = redactValues(outcome.value, secrets);
    const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    // A fan-out read whose every addressed target failed is an error to a generic client, with the
    // per-target detail kept (it still matches the output schema).
    if (everyTargetFailed(value)) result.isError = true;
    return result;
  }
  const error = redactValues(outcome.error, secrets);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

function everyTargetFailed(value: Record<string, unknown>): boolean {
  const results = value.results;
  return Array.isArray(results) && results.length > 0 &&
    results.every((r) => typeof r === 'object' && r !== null && 'target' in r && 'error' in r && !('ok' in r));
}
