// The shared argument vocabulary. Every tool builds its input schema from these, so `target`,
// `vm`, `limit`... mean the same thing and are described the same way on every tool.
import { z } from 'zod';

export const TargetsArg = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .default('all')
  .describe('Target name from targets.yaml, a list of names, or "all" (default) to fan out to every target concurrently.');

export const TargetArg = z
  .string()
  .min(1)
  .describe('Exactly one target name from targets.yaml (call list_targets to see them). Changes never fan out.');

export const VmArg = z.string().min(1).describe('VM by exact name or moid (e.g. "vm-123"). An ambiguous name is refused with the candidate moids.');
export const HostArg = z.string().min(1).describe('ESXi host by exact name or moid (e.g. "host-12").');
export const ClusterArg = z.string().min(1).describe('Cluster by exact name or moid (e.g. "domain-c7").');
export const DatastoreArg = z.string().min(1).describe('Datastore by exact name or moid (e.g. "datastore-15").');
export const SnapshotArg = z.string().min(1).describe('Snapshot by exact name or moid (e.g. "snapshot-3"); ambiguous names are refused.');
export const NameArg = z.string().min(1).describe('Exact object name to match.');
export const NameRegexArg = z
  .string()
  .min(1)
  .max(512)
  .describe('Regular expression (RE2 syntax, linear-time: no backreferences or lookaround) matched against object names.');
export const FolderArg = z.string().min(1).describe('Folder name, or inventory path such as "LabDC1/vm/apps" (matches that subtree).');
export const ResourcePoolArg = z.string().min(1).describe('Resource pool name or inventory path.');
export const PowerStateArg = z.enum(['poweredOn', 'poweredOff', 'suspended']).describe('Only objects in this power state.');
export const ConnectionStateArg = z
  .enum(['connected', 'disconnected', 'orphaned', 'inaccessible', 'invalid', 'notResponding'])
  .describe('Only objects in this connection state. orphaned/inaccessible/invalid VMs are ghost records: see unregister_vm.');

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
export const LimitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_LIMIT)
  .default(DEFAULT_LIMIT)
  .describe(`Rows to return per target (default ${DEFAULT_LIMIT}, max ${MAX_LIMIT}). Filtering and counting run over the full set.`);
export const OffsetArg = z.number().int().min(0).default(0).describe('Rows to skip per target, for paging.');
export const OverrideArg = z
  .boolean()
  .default(false)
  .describe('Set true to proceed past a policy rule marked unless_override. Protected objects ignore it.');
export const TokenArg = z.string().min(8).describe('The token from a proposal (state "pending").');
export const ChangeIdArg = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .describe('Your id for this change (ticket, plan step). Reused on retry so one change never leaves two checkpoints.');

/**
 * What every change tool takes besides its objects: `override`, and the change id that names the
 * change in its checkpoint tag (a retry with the same id reuses the checkpoint instead of pinning
 * a second one).
 */
export const ChangeCommonArgs = {
  override: OverrideArg,
  change_id: ChangeIdArg.optional(),
};
