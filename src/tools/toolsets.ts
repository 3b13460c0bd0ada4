// Toolsets (github-mcp-server's model): every tool belongs to one named set, and TOOLSETS /
// --toolsets pick the sets this process serves, so a client with a small context or a tool-count
// cap gets only what it needs. `list_targets` (discovery) is in every selection; the lifecycle
// tools come with any two-phase tool (registry.ts); `all` serves everything. The default keeps the
// --lab listing within the context budget (test/contract/context-budget.test.ts).
import type { AnyTool } from './define.js';

export const TOOLSET_DESCRIPTIONS = {
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
} as const;

export type ToolsetName = keyof typeof TOOLSET_DESCRIPTIONS;
export const TOOLSET_NAMES = Object.keys(TOOLSET_DESCRIPTIONS) as ToolsetName[];

/**
 * Served when neither TOOLSETS nor --toolsets is set, plus vsphere_destructive when the operator
 * set ENABLE_DESTRUCTIVE=true. `default` in a list means exactly these sets.
 */
export const DEFAULT_TOOLSETS: ToolsetName[] = ['vsphere_read', 'vsphere_change', 'zerto', 'flr', 'lab'];

/** Tools in every selection. */
const DISCOVERY = new Set(['list_targets']);

/** The one table of which tool is in which set. */
const TOOLSET_OF: Record<string, ToolsetName> = {
  list_vms: 'vsphere_read', get_vm_details: 'vsphere_read', list_snapshots: 'vsphere_read',
  list_hosts: 'vsphere_read', list_clusters: 'vsphere_read', list_datastores: 'vsphere_read',
  get_host_details: 'vsphere_infra', get_cluster_details: 'vsphere_infra', get_datastore_details: 'vsphere_infra',
  get_events: 'vsphere_monitor', get_tasks: 'vsphere_monitor', get_vm_performance: 'vsphere_monitor', get_customization_status: 'vsphere_monitor',
  power_on_vm: 'vsphere_change', power_off_vm: 'vsphere_change', suspend_vm: 'vsphere_change', reset_vm: 'vsphere_change',
  create_snapshot: 'vsphere_change', reconfigure_vm: 'vsphere_change', mount_iso: 'vsphere_change', unmount_iso: 'vsphere_change',
  migrate_vm: 'vsphere_change', clone_vm: 'vsphere_change',
  delete_snapshot: 'vsphere_destructive', revert_snapshot: 'vsphere_destructive', delete_vm: 'vsphere_destructive',
  unregister_vm: 'vsphere_destructive', remove_disk: 'vsphere_destructive', bulk_vm_action: 'vsphere_destructive',
  zerto_find_protection: 'zerto', zerto_create_tagged_checkpoint: 'zerto', zerto_guard_before_mutate: 'zerto',
  zerto_recover_file: 'flr', zerto_list_flr_sessions: 'flr', zerto_end_flr_session: 'flr',
  zerto_list_mutating_tools: 'zerto_catalog', zerto_add_mutating_tool: 'zerto_catalog', zerto_remove_mutating_tool: 'zerto_catalog',
  list_pending_actions: 'lifecycle', confirm_action: 'lifecycle', cancel_action: 'lifecycle',
  lab_write_guest_file: 'lab', lab_read_guest_file: 'lab',
};

/** The set of a tool: the table, else its declaration's `toolset`, else derived from its surface. */
export function toolsetOf(tool: AnyTool): ToolsetName | 'discovery' {
  if (DISCOVERY.has(tool.name)) return 'discovery';
  const declared = (tool as { toolset?: string }).toolset;
  const fromTable = TOOLSET_OF[tool.name] ?? (declared && (TOOLSET_NAMES as string[]).includes(declared) ? (declared as ToolsetName) : undefined);
  if (fromTable) return fromTable;
  switch (tool.surface) {
    case 'vsphere': return tool.category === 'read' ? 'vsphere_read' : tool.category === 'destructive' ? 'vsphere_destructive' : 'vsphere_change';
    case 'zerto': return 'zerto';
    case 'lifecycle': return 'lifecycle';
    case 'lab': return 'lab';
    default: return 'downstream';
  }
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
