// A gateway result as the downstream server sent it: each fenced text block decoded back to its
// string, and the gateway's `_untrusted` marking taken out of structuredContent. Tests that check
// what the downstream said read it through this; untrusted-downstream.test.ts checks the fencing.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { unfenced, UNTRUSTED_KEY } from '../../src/mcp/output/untrusted.js';

export function asSent(res: CallToolResult | Record<string, unknown>): { content: unknown[]; structuredContent: unknown } {
  const content = ((res.content ?? []) as Array<{ type: string; text?: string }>).map((c) => {
    if (c.type !== 'text' || c.text === undefined) return c;
    const inside = unfenced(c.text);
    if (inside === c.text) throw new Error(`a downstream text block that is not fenced: ${c.text}`);
    return { ...c, text: JSON.parse(inside) as string };
  });
  const sc = res.structuredContent as Record<string, unknown> | undefined;
  if (sc === undefined) return { content, structuredContent: undefined };
  const { [UNTRUSTED_KEY]: _mark, ...structuredContent } = sc;
  return { content, structuredContent };
}
