// Toolsets (github-mcp-server's model): every tool declares one named set (`toolset`), and TOOLSETS /
// --toolsets pick the sets this process serves, so a client with a small context or a tool-count
// cap gets only what it needs. `list_targets` (discovery) is in every selection; the lifecycle
// tools come with any two-phase tool (registry.ts); `all` serves everything. The default keeps the
// --lab listing within the context budget (test/contract/context-budget.test.ts).
import type { AnyTool } from './define.js';

/**
 * Every toolset, once: its id (what TOOLSETS / --toolsets name), the surface that must be
 * configured for its tools to exist (registry.ts), what it holds, and whether the default serves
 * it. Served when neither TOOLSETS nor --toolsets is set: the `default: true` sets, plus
 * vsphere_destructive when the operator set ENABLE_DESTRUCTIVE=true. `default` in a list means
 * exactly these sets. `downstream` is in it because its tools exist only when the operator put MCP
 * servers behind this one (config.json); `lab` is not: in --lab the gateway's guestfs tools are how
 * the agent changes a guest's files, and the lab_* stand-ins for the advisory path are asked for
 * with `--toolsets default,lab`. A `note` says when a set's tools exist at all. The tool reference
 * (scripts/gen-tool-docs.mjs, mcp/listing/tool-docs.ts) is generated from it.
 */
export const TOOLSETS = [
  { id: 'vsphere_read', surface: 'vsphere', default: true, description: 'Inventory reads: VMs and their details and snapshots; lists of hosts, clusters, datastores.' },
  { id: 'vsphere_infra', surface: 'vsphere', default: false, description: 'Details of one host, cluster or datastore.' },
  { id: 'vsphere_monitor', surface: 'vsphere', default: false, description: 'Diagnostics: events, tasks, performance, guest customization status.' },
  { id: 'vsphere_change', surface: 'vsphere', default: true, description: 'Non-destructive changes: power, snapshots, reconfigure, ISO, migrate, clone.' },
  { id: 'vsphere_destructive', surface: 'vsphere', default: false, description: 'Two-phase destructive changes (also need ENABLE_DESTRUCTIVE=true).', note: 'in the default when ENABLE_DESTRUCTIVE=true, outside `--lab`' },
  { id: 'zerto', surface: 'zerto', default: true, description: 'Zerto protection lookup, tagged checkpoints, the guard for other servers\' tools.' },
  { id: 'flr', surface: 'zerto', default: true, description: 'File-level restore from a checkpoint, and its FLR sessions.' },
  { id: 'zerto_catalog', surface: 'zerto', default: false, description: 'Edit the catalog of other servers\' mutating tools the guard knows.' },
  { id: 'lifecycle', surface: 'lifecycle', default: false, description: 'Proposals: list, confirm, cancel (added with any two-phase tool).', note: 'served with any two-phase tool; `get_change`, `cancel_change` and `undo_change` with any change' },
  { id: 'lab', surface: 'lab', default: false, description: 'The simulated lab\'s guest-file tools (--lab only).', note: 'registered by `--lab` only: stand-ins for the advisory path' },
  { id: 'downstream', surface: 'downstream', default: true, description: 'Tools of other MCP servers this one proxies.', note: 'registered only when config.json names downstream servers: `list_downstream` and their `<server>__<tool>` tools' },
  { id: 'hooks', surface: 'zerto', default: false, description: 'The guard as a Claude Code PreToolUse hook calls it (for the hook, not the model).' },
] as const satisfies readonly { id: string; surface: string; default: boolean; description: string; note?: string }[];

/** The group TOOLSETS / --toolsets turns on or off as a whole; every declaration names one. */
export type Toolset = (typeof TOOLSETS)[number]['id'];
/** Which configuration exposes a toolset's tools (registry.ts gates on it; no per-tool switch). */
export type Surface = (typeof TOOLSETS)[number]['surface'];

export const TOOLSET_NAMES: Toolset[] = TOOLSETS.map((t) => t.id);
export const DEFAULT_TOOLSETS: Toolset[] = TOOLSETS.filter((t) => t.default).map((t) => t.id);

const SURFACE_OF = new Map<Toolset, Surface>(TOOLSETS.map((t) => [t.id, t.surface]));

/** The surface of a tool, from its toolset. */
export function surfaceOf(tool: Pick<AnyTool, 'toolset'>): Surface {
  return SURFACE_OF.get(tool.toolset)!;
}

/** Tools in every selection. */
const DISCOVERY = new Set(['list_targets']);

/** The set of a tool: its declaration's `toolset` (discovery tools are in every set). */
export function toolsetOf(tool: AnyTool): Toolset | 'discovery' {
  return DISCOVERY.has(tool.name) ? 'discovery' : tool.toolset;
}

export interface ToolsetSelection {
  sets: Set<Toolset>;
  /** Names that are not toolsets (startup refuses them, listing the valid ones). */
  unknown: string[];
}

/**
 * Parses `vsphere_read,zerto` / `all` / `default,zerto_catalog`. Unset or empty means the default,
 * with vsphere_destructive when `enableDestructive` (ENABLE_DESTRUCTIVE=true asks for those tools).
 */
export function parseToolsets(raw: string | undefined, enableDestructive = false): ToolsetSelection {
  const names = (raw ?? '').split(/[\s,]+/).map((n) => n.trim().toLowerCase()).filter(Boolean);
  if (!names.length) return { sets: new Set<Toolset>([...DEFAULT_TOOLSETS, ...(enableDestructive ? ['vsphere_destructive' as const] : [])]), unknown: [] };
  const sets = new Set<Toolset>();
  const unknown: string[] = [];
  for (const n of names) {
    if (n === 'all') TOOLSET_NAMES.forEach((s) => sets.add(s));
    else if (n === 'default') DEFAULT_TOOLSETS.forEach((s) => sets.add(s));
    else if ((TOOLSET_NAMES as string[]).includes(n)) sets.add(n as Toolset);
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
