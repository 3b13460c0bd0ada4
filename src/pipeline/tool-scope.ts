// Which OAuth scope a tools/call needs, by tool name: this server's own tools and the gateway's
// downstream tools alike (their set changes while the process runs, so it is asked at each call).
// HTTP mode's gate answers 403 insufficient_scope with it before the call reaches the server, so
// a client steps up instead of getting a tool error; the pipeline checks the same scope again.
import { requiredScope, type Scope } from '../core/scopes.js';
import type { AnyTool } from '../tools/define.js';
import { surfaceOf } from '../tools/toolsets.js';

export type ScopeOfTool = (name: string) => Scope | undefined;

export function scopeOfToolCall(own: readonly AnyTool[], dynamic?: () => readonly AnyTool[]): ScopeOfTool {
  const byName = new Map(own.map((t) => [t.name, t]));
  return (name) => {
    // The proposal's own scope is checked again by the pipeline when it runs.
    if (name === 'confirm_action' || name === 'cancel_action') return 'vsphere:change';
    const tool = byName.get(name) ?? dynamic?.().find((t) => t.name === name);
    // Unknown (a downstream not up yet, a typo): left to the server, which refuses or waits.
    return tool ? scopeOf(tool) : undefined;
  };
}

/** The scope a call of this tool needs, from its category and its toolset's surface. */
export function scopeOf(tool: AnyTool): Scope {
  return requiredScope({ category: tool.category, surface: surfaceOf(tool) });
}
