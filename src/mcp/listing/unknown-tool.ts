// The message of the JSON-RPC error for a tools/call naming a tool this process does not serve:
// it names the tool, points at tools/list, suggests the closest served name, and says why a
// declared tool is absent (destructive tools off, or a toolset not chosen) only when that is why.
import type { AnyTool } from '../../tools/define.js';
import { closestName } from '../../pipeline/unknown-args.js';
import { inSelection, parseToolsets, toolsetOf } from '../../tools/toolsets.js';

export interface ServedSelection {
  enableDestructive: boolean;
  /** TOOLSETS / --toolsets as configured. */
  toolsets?: string | undefined;
}

export function unknownToolMessage(name: string, served: AnyTool[], declared: AnyTool[], sel: ServedSelection): string {
  const base = `Unknown tool '${name}': call tools/list for the tools this server offers.`;
  const known = declared.find((t) => t.name === name);
  if (known && known.category === 'destructive' && !sel.enableDestructive) {
    return `${base} '${name}' is destructive and exists only when the server runs with ENABLE_DESTRUCTIVE=true.`;
  }
  if (known && !inSelection(known, parseToolsets(sel.toolsets, sel.enableDestructive))) {
    return `${base} '${name}' is in toolset '${toolsetOf(known)}', which TOOLSETS / --toolsets does not select.`;
  }
  if (known) return `${base} '${name}' needs what it works on configured (a vSphere target or a Zerto site).`;
  const near = closestName(name, served.map((t) => t.name));
  return near ? `${base} Did you mean '${near}'?` : base;
}
