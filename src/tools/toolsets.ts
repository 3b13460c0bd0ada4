// Toolsets (github-mcp-server's model): every tool declares one named set (`toolset`), and TOOLSETS /
// --toolsets pick the sets this process serves, so a client with a small context or a tool-count
// cap gets only what it needs. `list_targets` (discovery) is in every selection; the lifecycle
// tools come with any two-phase tool (registry.ts); `all` serves everything. The default keeps the
// --lab listing within the context budget (test/contract/context-budget.test.ts).
import type { AnyTool, Toolset } from './define.js';

export const TOOLSET_DESCRIPTIONS: Record<Toolset, string> = {
  vsphere_read: 'Inventory reads: VMs and their details and snapshots; lists of hosts, clusters, datastores.',
  vsphere_infra: 'Details of one host, cluster or datastore.',
  vsphere_monitor: 'Diagnostics: events, tasks, performance, guest customization status.',
  vsphere_change: 'Non-destructive changes: power, snapshots, reconfigure, ISO, migrate, clone.',
  vsphere_destructive: 'Two-phase destructive changes (also need ENABLE_DESTRUCTIVE=true).',
  zerto: 'Zerto protection lookup, tagged checkpoints, the guard for other servers\' tools.',
  flr: 'File-level restore from a checkpoint, and its FLR sessions.',
  zerto_catalog: 'Edit the catalog of other servers\' mutating tools the guard knows.',
  lifecycle: 'Proposals: list, confirm, cancel (added with any two-phase tool).',
  lab: 'The simulated lab\'s guest-file tools (--lab only).',
  downstream: 'Tools of other MCP servers this one proxies.',
  hooks: 'The guard as a Claude Code PreToolUse hook calls it (for the hook, not the model).',
};

export type ToolsetName = Toolset;
export const TOOLSET_NAMES = Object.keys(TOOLSET_DESCRIPTIONS) as ToolsetName[];

/**
 * Served when neither TOOLSETS nor --toolsets is set, plus vsphere_destructive when the operator
 * set ENABLE_DESTRUCTIVE=true. `default` in a list means exactly these sets. `downstream` is in it
 * because its tools exist only when the operator put MCP servers behind this one (config.json);
 * `lab` is not: in --lab the gateway's guestfs tools are how the agent changes a guest's files, and
 * the lab_* stand-ins for the advisory path are asked for with `--toolsets default,lab`.
 */
export const DEFAULT_TOOLSETS: ToolsetName[] = ['vsphere_read', 'vsphere_change', 'zerto', 'flr', 'downstream'];

/** Tools in every selection. */
const DISCOVERY = new Set(['list_targets']);

/** The set of a tool: its declaration's `toolset` (discovery tools are in every set). */
export function toolsetOf(tool: AnyTool): ToolsetName | 'discovery' {
  return DISCOVERY.has(tool.name) ? 'discovery' : tool.toolset;
}

export interface ToolsetSelection {
  sets: Set<ToolsetName>;
  /** Names that are not toolsets (startup refuses them, listing the valid ones). */
  unknown: string[];
}

/**
 * Parses `vsphere_read,zerto` / `all` / `default,zerto_catalog`. Unset or empty means the default,
 * with vsphere_destructive when `enableDestructive` (ENABLE_DESTRUCTIVE=true asks for those tools).
 */
export function parseToolsets(raw: string | undefined, enableDestructive = false): ToolsetSelection {
  const names = (raw ?? '').split(/[\s,]+/).map((n) => n.trim().toLowerCase()).filter(Boolean);
  if (!names.length) return { sets: new Set<ToolsetName>([...DEFAULT_TOOLSETS, ...(enableDestructive ? ['vsphere_destructive' as const] : [])]), unknown: [] };
  const sets = new Set<ToolsetName>();
  const unknown: string[] = [];
  for (const n of names) {
    if (n === 'all') TOOLSET_NAMES.forEach((s) => sets.add(s));
    else if (n === 'default') DEFAULT_TOOLSETS.forEach((s) => sets.add(s));
    else if ((TOOLSET_NAMES as string[]).includes(n)) sets.add(n as ToolsetName);
    else unknown.push(n);
  }
  return { sets, unknown };
}

export function toolsetProblem(selection: ToolsetSelection): string | undefined {
  if (!selection.unknown.length) return undefined;
  return `unknown toolset${selection.unknown.length > 1 ? 's' : ''} ${selection.unknown.map((u) => `'${u}'`).join(', ')} in TOOLSETS / --toolsets; ` +
    `valid: all, default, ${TOOLSET_NAMES.join(', ')}`;
}

export function inSelection(tool: AnyTool, selection: ToolsetSelection): boolean {
  const set = toolsetOf(tool);
  return set === 'discovery' || selection.sets.has(set);
}
