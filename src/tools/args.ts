// The shared argument vocabulary. Every tool builds its input schema from these, so `target`,
// `vm`, `limit`... mean the same thing and are described the same way on every tool.
import { z } from 'zod';

export const TargetsArg = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .default('all')
  .describe('Target, list of targets, or "all".');

export const TargetArg = z
  .string()
  .min(1)
  .describe('One target name (see list_targets).');

export const VmArg = z.string().min(1).describe('VM name or moid.');
export const HostArg = z.string().min(1).describe('ESXi host name or moid.');
export const ClusterArg = z.string().min(1).describe('Cluster name or moid.');
export const DatastoreArg = z.string().min(1).describe('Datastore name or moid.');
export const SnapshotArg = z.string().min(1).describe('Snapshot name or moid.');
export const NameArg = z.string().min(1).describe('Exact name.');
export const NameRegexArg = z
  .string()
  .min(1)
  .max(512)
  .describe('RE2 regex on names.');
export const FolderArg = z.string().min(1).describe('Folder name or inventory path (whole subtree).');
export const ResourcePoolArg = z.string().min(1).describe('Resource pool name or path.');
export const PowerStateArg = z.enum(['poweredOn', 'poweredOff', 'suspended']).describe('Only this power state.');
export const ConnectionStateArg = z
  .enum(['connected', 'disconnected', 'orphaned', 'inaccessible', 'invalid', 'notResponding'])
  .describe('Only this connection state.');

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
export const LimitArg = z
  .number()
  .int()
  .min(1)
  .max(MAX_LIMIT)
  .default(DEFAULT_LIMIT)
  .describe(`Rows per target (max ${MAX_LIMIT}).`);
export const OffsetArg = z.number().int().min(0).default(0).describe('Rows to skip per target.');
export const OverrideArg = z
  .boolean()
  .default(false)
  .describe('Pass an unless_override policy rule.');
export const TokenArg = z.string().min(8).describe('Token of a pending proposal.');
export const ChangeIdArg = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .describe('Your change id; reuse it on retry.');

/**
 * What every change tool takes besides its objects: `override`, and the change id that names the
 * change in its checkpoint tag (a retry with the same id reuses the checkpoint instead of pinning
 * a second one).
 */
export const ChangeCommonArgs = {
  override: OverrideArg,
  change_id: ChangeIdArg.optional(),
};
