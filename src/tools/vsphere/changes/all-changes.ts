// The vSphere mutating and destructive tools, in listing order: mutating first, then destructive
// (registered only with ENABLE_DESTRUCTIVE=true; always two-phase).
import type { AnyTool } from '../../define.js';
import { powerOffVm, powerOnVm, resetVm, suspendVm } from './power.js';
import { createSnapshot } from './snapshots-create.js';
import { reconfigureVm } from './reconfigure-vm.js';
import { mountIso, unmountIso } from './iso.js';
import { cloneVm, migrateVm } from './placement.js';
import { deleteSnapshot, revertSnapshot } from './snapshots-destructive.js';
import { deleteVm, unregisterVm } from './delete-vm.js';
import { removeDisk } from './remove-disk.js';
import { bulkVmAction } from './bulk.js';

export const VSPHERE_CHANGE_TOOLS: AnyTool[] = [
  powerOnVm, powerOffVm, suspendVm, resetVm, createSnapshot, reconfigureVm, mountIso, unmountIso, migrateVm, cloneVm,
  deleteSnapshot, revertSnapshot, deleteVm, unregisterVm, removeDisk, bulkVmAction,
];
