// Rendering, once for every tool. Results go out as structuredContent and as the same JSON in a
// text block (Claude Code shows the model only the structured part, Cursor only the text). Errors
// carry no structuredContent (clients would validate it against the output schema) but the same
// JSON error object in text, with code, retryable and a hint.
//
// A result carries text from vCenter, Zerto, guests and other servers (VM names, annotations,
// event messages, restored file contents). The text block fences it between two markers with a
// random id the data cannot guess, so it cannot close the fence and speak as the server; the
// server instructions say that everything inside is data, never instructions.
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { redactValues } from '../core/redact.js';
import type { ToolOutcome } from './pipeline-call.js';

export function render(outcome: ToolOutcome, secrets: readonly string[]): CallToolResult {
  if (outcome.ok) {
    const value = redactValues(outcome.value, secrets);
    const result: CallToolResult = { content: [{ type: 'text', text: fenced(JSON.stringify(value)) }], structuredContent: value };
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

/** The opening marker's name; SERVER_INSTRUCTIONS explains it. */
export const UNTRUSTED_FENCE = 'untrusted-data';

/** `<untrusted-data-ID>\n{json}\n</untrusted-data-ID>`, ID random per result. */
export function fenced(json: string): string {
  const id = randomBytes(8).toString('hex');
  return `<${UNTRUSTED_FENCE}-${id}>\n${json}\n</${UNTRUSTED_FENCE}-${id}>`;
}

/** The JSON inside a fenced text block (clients that read the text, and tests). */
export function unfenced(text: string): string {
  const m = new RegExp(`^<${UNTRUSTED_FENCE}-([0-9a-f]{16})>\\n([\\s\\S]*)\\n</${UNTRUSTED_FENCE}-\\1>$`).exec(text);
  return m ? m[2]! : text;
}
