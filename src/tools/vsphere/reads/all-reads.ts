// The vSphere read tools, in listing order (docs/tools.md). Each lives with its subject; all are
// fan-out reads over `target` (name, list or "all") except list_targets, which reads the
// configuration.
import type { AnyTool } from '../../define.js';
import { listTargets } from './list-targets.js';
import { listVms } from './list-vms.js';
import { getVmDetails } from './read-vm-details.js';
import { getCustomizationStatus, getVmPerformance } from './read-vm-status.js';
import { getHostDetails, listHosts } from './read-hosts.js';
import { getClusterDetails, listClusters } from './read-clusters.js';
import { getDatastoreDetails, listDatastores } from './read-datastores.js';
import { getEvents, getTasks } from './read-history.js';
import { listSnapshots } from './read-snapshots.js';

export const VSPHERE_READ_TOOLS: AnyTool[] = [
  listTargets,
  listVms,
  getVmDetails,
  getVmPerformance,
  listHosts,
  getHostDetails,
  listClusters,
  getClusterDetails,
  listDatastores,
  getDatastoreDetails,
  getEvents,
  getTasks,
  getCustomizationStatus,
  listSnapshots,
];
