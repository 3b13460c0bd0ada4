// Every tool this server can expose, in listing order. The registry decides which of them a given
// configuration registers (lab-only tools are added by lab mode itself).
import type { AnyTool } from './define.js';
import { LIFECYCLE_TOOLS } from './lifecycle/proposal-tools.js';
import { CHANGE_TOOLS } from './lifecycle/change-tool-list.js';
import { VSPHERE_READ_TOOLS } from './vsphere/reads/all-reads.js';
import { VSPHERE_CHANGE_TOOLS } from './vsphere/changes/all-changes.js';
import { ZERTO_TOOLS } from './zerto/zerto-tools.js';

export const ALL_TOOLS: AnyTool[] = [...VSPHERE_READ_TOOLS, ...VSPHERE_CHANGE_TOOLS, ...ZERTO_TOOLS, ...LIFECYCLE_TOOLS, ...CHANGE_TOOLS];
