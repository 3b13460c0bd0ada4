// zod schemas for what the ZVM sends, applied at the boundary (rest.ts). Members are PascalCase
// on the wire (docs/zerto-notes.md), but the Swagger renders camelCase and old builds mixed
// both, so every object is first re-keyed case-insensitively onto the names declared here. Link
// objects use lower-case keys (`identifier`, `href`, `type`). Objects stay loose: a ZVM that adds
// members must not break us; only the members we act on are required.

import { z } from 'zod';

/** Re-keys an object so `vmIdentifier`/`VMIDENTIFIER` land on the declared `VmIdentifier`. */
function keyed<S extends z.ZodRawShape>(shape: S) {
  const canonical = new Map(Object.keys(shape).map((k) => [k.toLowerCase(), k]));
  return z.preprocess((value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[canonical.get(k.toLowerCase()) ?? k] = v;
    return out;
  }, z.looseObject(shape));
}

const str = z.string().nullable().optional();

/**
 * An array whose unusable rows (a member we act on missing or mistyped) are skipped and counted
 * rather than failing the whole list: one odd row must not hide every other VM or VPG.
 */
export function lenientList<T>(item: z.ZodType<T>) {
  return z.array(z.unknown()).transform((rows) => {
    const items: T[] = [];
    for (const row of rows) {
      const parsed = item.safeParse(row);
      if (parsed.success) items.push(parsed.data);
    }
    return { items, skipped: rows.length - items.length };
  });
}
export interface Listed<T> {
  items: T[];
  skipped: number;
}
const idString = z.union([z.string(), z.number()]).transform((v) => String(v));
/** Enum members are integers on 10.x; some filters and old builds use the names. */
const enumValue = z.union([z.number(), z.string()]).nullable().optional();

export const SiteLink = keyed({ identifier: str, href: str, type: str, rel: str });
export type SiteLink = z.infer<typeof SiteLink>;

export const LocalSite = keyed({
  // Real clients read SiteIdentifier; the Swagger omits it and has only Link.identifier (evidence #17).
  SiteIdentifier: str,
  Link: SiteLink.nullable().optional(),
  // Nullable in the Swagger: the configured site name stands in (client.ts).
  SiteName: str,
  SiteType: str,
  Version: str,
  IsReplicationToSelfEnabled: z.boolean().nullable().optional(),
});
export type LocalSite = z.infer<typeof LocalSite>;

export const PeerSite = keyed({
  // Missing in the Swagger's PeerSiteApi (a Zerto employee's example reads it): Link.identifier is the fallback.
  SiteIdentifier: str,
  Link: SiteLink.nullable().optional(),
  PeerSiteName: str,
  SiteName: str,
  SiteType: str,
  HostName: str,
  PairingStatus: enumValue,
});
export type PeerSite = z.infer<typeof PeerSite>;
export const PeerSiteList = lenientList(PeerSite);

const Entities = keyed({ Protected: enumValue, Recovery: enumValue });

export const VmRow = keyed({
  VmIdentifier: z.string(),
  // Nullable in the Swagger (the .NET default for strings): such a row still protects its VM, so it
  // is kept for identifier lookups and left out of name matching (find-protection counts it).
  VmName: str,
  VpgIdentifier: z.string(),
  VpgName: str,
  ProtectedSite: SiteLink.nullable().optional(),
  RecoverySite: SiteLink.nullable().optional(),
  ProtectedSiteName: str,
  RecoverySiteName: str,
  // Pre-10.x names (docs/zerto-notes.md): used only when the 10.x names are missing.
  SourceSite: str,
  TargetSite: str,
  Status: enumValue,
  Entities: Entities.nullable().optional(),
  EnabledActions: keyed({ IsFlrEnabled: z.boolean().nullable().optional() }).nullable().optional(),
});
export type VmRow = z.infer<typeof VmRow>;
export const VmRowList = lenientList(VmRow);

/** The journal's reach (a real capture and the 10.x VpgApi agree on these members). */
export const HistoryStatus = keyed({
  ActualHistoryInMinutes: z.number().nullable().optional(),
  ConfiguredHistoryInMinutes: z.number().nullable().optional(),
  EarliestCheckpoint: keyed({ CheckpointIdentifier: idString.nullable().optional(), TimeStamp: str }).nullable().optional(),
});
export type HistoryStatus = z.infer<typeof HistoryStatus>;

export const Vpg = keyed({
  VpgIdentifier: z.string(),
  VpgName: str,
  Status: enumValue,
  StatusDescription: str,
  SubStatus: enumValue,
  ProtectedSite: SiteLink.nullable().optional(),
  RecoverySite: SiteLink.nullable().optional(),
  ProtectedSiteName: str,
  RecoverySiteName: str,
  SourceSite: str,
  TargetSite: str,
  Entities: Entities.nullable().optional(),
  // Optional: a VPG row without it is still a VPG; only the journal's reach goes unknown.
  HistoryStatusApi: HistoryStatus.nullable().optional().catch(null),
  // VpgActiveProcessesApi (R9): a failover test in progress shows as a non-null RunningFailOverTestApi
  // (its `Stage` vocabulary is undocumented). Unreadable reads as unknown, never as "no test".
  ActiveProcessesApi: keyed({ RunningFailOverTestApi: keyed({ Stage: str }).nullable().optional() }).nullable().optional().catch(null),
});
export type Vpg = z.infer<typeof Vpg>;
export const VpgList = lenientList(Vpg);

export const Checkpoint = keyed({
  CheckpointIdentifier: idString,
  TimeStamp: z.string(),
  Tag: str,
  Type: enumValue,
});
export type Checkpoint = z.infer<typeof Checkpoint>;
export const CheckpointList = lenientList(Checkpoint);
/** `{Earliest, Latest}`: either may be null (an empty journal, right after a re-sync). */
export const CheckpointStats = keyed({
  Earliest: keyed({ TimeStamp: str }).nullable().optional(),
  Latest: keyed({ TimeStamp: str }).nullable().optional(),
});

/** ZVMA's ZertoTaskStates; the Swagger's filters take the number or the name, so answers may too. */
const TASK_STATE_NAMES = ['firstunusedvalue', 'inprogress', 'waitingforuserinput', 'paused', 'failed', 'stopped', 'completed', 'cancelling'];
const taskState = z.preprocess((v) => {
  if (typeof v !== 'string' || /^\s*\d+\s*$/.test(v)) return v;
  const i = TASK_STATE_NAMES.indexOf(v.replace(/[\s_-]/g, '').toLowerCase());
  return i < 0 ? v : i;
}, z.coerce.number());

export const Task = keyed({
  TaskIdentifier: str,
  Type: str,
  Status: keyed({ State: taskState, Progress: z.coerce.number().nullable().optional() }),
  CompleteReason: str,
  Started: str,
  Completed: str,
});
export type Task = z.infer<typeof Task>;

/**
 * One row of GET /v1/vms/{id}/pointsInTime: Zerto's documented per-checkpoint FLR eligibility
 * (`CanMount.IsAllowed` and `Reason`, CONFIRMED by the Swagger; PascalCase INFERRED; docs/zerto-notes.md).
 */
export const PointInTime = keyed({
  Checkpoint: Checkpoint.nullable().optional(),
  CanMount: keyed({ IsAllowed: z.boolean().nullable().optional(), Reason: str }).nullable().optional(),
});
export type PointInTime = z.infer<typeof PointInTime>;
export const PointInTimeList = lenientList(PointInTime);

export const FlrSession = keyed({
  FlrSessionIdentifier: z.string(),
  // A string on 7.x (`MountCompletedSuccessfully`); the 10.x vocabulary is open (docs/zerto-notes.md).
  FlrSessionStatus: z.union([z.string(), z.number()]).nullable().optional(),
  FlrSessionType: str,
  VmIdentifier: str,
  VpgIdentifier: str,
  CheckpointIdentifier: z.union([z.string(), z.number()]).nullable().optional(),
  MountTime: str,
  SiteIdentifier: str,
});
export type FlrSession = z.infer<typeof FlrSession>;
export const FlrSessionList = lenientList(FlrSession);

/**
 * GET /v1/flrs/{id} is an array in the 10.x Swagger but a single object in the 7.x docs.
 * Accept both; an empty array means the session is gone.
 */
export const FlrSessionOne = z.union([FlrSession, z.array(FlrSession)]).transform((v) => (Array.isArray(v) ? (v[0] ?? null) : v));

export const PathItem = keyed({
  Path: z.string(),
  Type: str,
  IsBrowsable: z.boolean().nullable().optional(),
  DownloadInformation: keyed({ IsDownloadable: z.boolean().nullable().optional(), AdditionalInformation: str }).nullable().optional(),
  SizeInBytes: z.number().nullable().optional(),
  LastWriteTime: str,
});
export type PathItem = z.infer<typeof PathItem>;

export const PathInformation = keyed({
  // Nothing is read from it but its presence; a null `Path` there (the Swagger allows it) must not fail the browse.
  MainPathItem: PathItem.nullable().optional().catch(null),
  PathItems: lenientList(PathItem).transform((l) => l.items).nullable().optional(),
});
export type PathInformation = z.infer<typeof PathInformation>;

/**
 * Action endpoints (checkpoint insert, FLR mount, download, unmount) return a bare JSON string.
 * Also accept an object wrapping it under a plausible member, and an empty body (DELETE on old
 * builds returned ''), which becomes null.
 */
export const ActionResult = z.union([
  z.string().transform((s) => (s.trim() === '' ? null : s.trim())),
  z.null(),
  z.looseObject({}).transform((o) => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'string' && /^(taskidentifier|flrsessionidentifier|url|downloadurl|value|result|identifier)$/i.test(k)) return v;
    }
    return null;
  }),
]);
