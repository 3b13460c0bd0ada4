// A downstream's result, as data: each text block becomes a JSON string in one fence; a `resource`
// or `resource_link` block (whose text, name and description reach the model as much as text
// does) becomes a fenced text block holding the block as JSON; images and audio pass as they came.
// structuredContent keeps every field and gains the `_untrusted` marking (all its strings are the
// other server's), then one fenced line and the checkpoint facts in _meta. Proposals, dry runs
// and errors render as for any tool.
import type { GuardOutcome } from '../../core/guard.js';
import type { DownstreamResult } from '../../downstream/downstream-tool.js';
import type { ExportedTool } from '../../downstream/manager.js';
import type { ToolOutcome } from '../../pipeline/call.js';
import type { ContentBlock, Renderer, ToolResult } from '../tool-result.js';
import { fenced, markOf, newFenceId, UNTRUSTED_META_KEY, withMark } from '../../mcp/output/untrusted.js';

const META_KEY = 'zerto-rewind/gateway';

type Block = ContentBlock;

export function presentDownstreamResult(x: ExportedTool, outcome: ToolOutcome, secrets: readonly string[], render: Renderer<ToolOutcome>): ToolResult {
  if (!outcome.ok || !outcome.value.result) return render(outcome, secrets);
  const value = render(outcome, secrets).structuredContent as { result: DownstreamResult; checkpoint?: GuardOutcome; audit_id?: string };
  const result = value.result;
  const cp = value.checkpoint;
  const facts = {
    downstream: x.server, tool: x.tool.name, ...(value.audit_id ? { audit_id: value.audit_id } : {}),
    ...(cp ? { checkpoint: { status: cp.status, tag: cp.tag ?? null, vpgs: [...new Set(cp.checkpoints.map((c) => c.vpg))], change_id: cp.change_id, message: cp.message } } : {}),
  };
  // The line names VMs and VPGs, which are upstream text as well.
  const line = cp ? `[zerto-rewind] ${cp.message}` : undefined;
  const fence = newFenceId();
  const structured = result.structuredContent;
  const blocks: Block[] = result.content ?? [];
  const mark = markOf(structured ?? blocks.map(blockText), fence, true);
  const content = [...blocks, ...(line ? [{ type: 'text' as const, text: line }] : [])].map((c) => asData(c, fence));
  return {
    ...result,
    content,
    // Only an object can take the marking as a field; anything else keeps it in _meta alone.
    ...(isPlainObject(structured) ? { structuredContent: withMark(structured, mark) } : {}),
    _meta: { ...(result._meta ?? {}), [META_KEY]: facts, [UNTRUSTED_META_KEY]: mark },
  };
}

/** A block as the model may see it: text fenced as a JSON string, resources fenced as JSON. */
function asData(c: Block, fence: string): Block {
  if (c.type === 'text') return { ...c, text: fenced(JSON.stringify(c.text), fence) };
  if (c.type === 'resource' || c.type === 'resource_link') return { type: 'text', text: fenced(JSON.stringify(c), fence) };
  return c;
}

/** What a block says in words (for the marking when there is no structuredContent). */
function blockText(c: Block): string | Record<string, unknown> {
  if (c.type === 'text') return c.text;
  if (c.type === 'resource' || c.type === 'resource_link') return c as unknown as Record<string, unknown>;
  return '';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
