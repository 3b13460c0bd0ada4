// The Zerto surface the rest of the server uses (tools, guard wiring, main). Nothing here knows MCP.
export { ZvmClient, resolveDownloadUrl, type SiteContext, type VmFilter, type ZvmClientOptions } from './client.js';
export { withSiteDefaults, DEFAULT_ZERTO_CLIENT_ID, type ZertoSiteConfig } from './site-config.js';
export type { VmLocator, VmLocatorMatch } from './vm-locator.js';
export { zertoVmIdentifier, parseZertoVmIdentifier, looksLikeVmIdentifier } from './vm-identity.js';
export { findProtection, uniqueVms, type FindProtectionOptions, type FoundProtection, type MatchedBy } from './find-protection.js';
export type { ProtectingVpg, SiteRef } from './vpg-facts.js';
export { formatTag, parseTag, sameChange, tagTime, type TagParts } from './tag.js';
export {
  pinTaggedCheckpoint, planTaggedCheckpoint,
  type PinArgs, type PinDryRun, type PinnedCheckpoint, type PinProgress, type PinResult,
} from './pin-checkpoint.js';
export type { PinRequest, VpgInput } from './checkpoint-plan.js';
export { checkFlrPlacement, firstPlaceableCandidate, mountFirstCandidate, mountWhereAccepted, siteClientLookup, type FlrAttempt, type SiteClientLookup, type VpgRefusal } from './flr-site.js';
export { findCheckpoint, flrCandidates, type CheckpointQuery, type FlrCandidate } from './flr-checkpoint.js';
export { describeHistory, journalReach, type JournalReach } from './journal-reach.js';
export { recoverFile, type RecoverFileArgs, type RecoverFileResult, type RecoverProgress } from './recover-file.js';
export { withFlrMount, type DownloadedFile, type FlrMountArgs, type MountedCheckpoint } from './flr-mount.js';
export { FlrSessionRegistry, type ClientLookup, type FlrSessionRegistryOptions, type FlrSessionView } from './flr-sessions.js';
export { unmountFlrSession, type UnmountReport } from './flr-unmount.js';
export type { StoredFlrSession } from '../state/files/flr-session-file-store.js';
