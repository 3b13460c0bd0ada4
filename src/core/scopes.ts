// OAuth scopes -> what a caller may do. One mapping for the HTTP gate (403 insufficient_scope
// before the call reaches the server) and for the pipeline (a confirmation needs the scope of the
// proposal's tool, whoever confirms it, over MCP or in the dashboard).
//
//   vsphere:read         every read (any surface), list_pending_actions; the floor for any MCP call
//   vsphere:change       vSphere (and lab) `mutate` tools; confirm_action and cancel_action
//   vsphere:destructive  every `destructive` tool (and so their confirmation)
//   zerto:restore        Zerto tools that change something: pin checkpoints, file restore,
//                        FLR sessions, catalog additions

export const SCOPES = ['vsphere:read', 'vsphere:change', 'vsphere:destructive', 'zerto:restore'] as const;
export type Scope = (typeof SCOPES)[number];

interface ToolShape {
  category: 'read' | 'mutate' | 'destructive';
  /** The surface of the tool's toolset (tools/toolsets.ts). */
  surface: string;
}

export function requiredScope(tool: ToolShape): Scope {
  if (tool.category === 'read') return 'vsphere:read';
  if (tool.category === 'destructive') return 'vsphere:destructive';
  if (tool.surface === 'zerto') return 'zerto:restore';
  return 'vsphere:change';
}
