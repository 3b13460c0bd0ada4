// The policy engine: a pure function from (policy, request) to a decision. No I/O, no clock.
// Precedence, as in vmware-mcp: protected (absolute deny; override ignored) -> rules (ordered,
// first match with an action wins; `override` flips an `unless_override` deny) -> the target's
// block -> defaults (which ship strict). The checkpoint mode has its own precedence: the first
// matching rule that sets one, else the target's block, else the defaults; so has the approval.
// A rule that matches on a claim the caller's token does not carry (groups) denies the call: a
// missing claim is unknown, never "no groups".
import {
  BUILTIN_DEFAULTS,
  type ApprovalLevel,
  type Category,
  type CheckpointMode,
  type PolicyFile,
  type PolicyRule,
  type ProtectedEntry,
} from '../config/policy-file.js';
import { fnmatch } from './fnmatch.js';
import { ownText } from './own-text.js';

export interface PolicyObject {
  type: string;
  name: string;
  moid?: string;
  /** Inventory path of the parent folder, e.g. 'LabDC1/vm/apps/linux'. */
  folder?: string;
  /** Resource pool name or inventory path. */
  resourcePool?: string;
}

export interface PolicyRequest {
  tool: string;
  category: Category;
  /** The single target of the call; for a fan-out read, the call is decided once per target. */
  target: { name: string; tags: string[] };
  /** True when the caller asked for `target: "all"`. */
  targetIsAll?: boolean;
  objects: PolicyObject[];
  override: boolean;
  /** A call the gateway forwards to a downstream server; `unguarded`: nothing ties the change to a VM. */
  downstream?: { server: string; unguarded: boolean };
  /**
   * The verified caller (HTTP mode); absent over stdio, where `users`/`groups` rules never match.
   * `groups` undefined: the token carried no groups claim (not the same as an empty list).
   */
  caller?: { subject: string; groups: string[] | undefined };
}

export interface CallsPerMinute {
  read: number;
  mutate: number;
  destructive: number;
}

export interface PolicyDecision {
  allowed: boolean;
  reason: string;
  /** Rule (or protected entry, or 'target:<name>' / 'defaults') that decided. */
  rule: string;
  /** True when the same call with `override=true` would be allowed. */
  overrideWouldHelp: boolean;
  checkpoint: CheckpointMode;
  requireWebApproval: boolean;
  autoSnapshotBeforeDestroy: boolean;
  maxBulkObjects: number;
  maxCallsPerMinute: CallsPerMinute;
  /** Policy can only force dry run on; targets.yaml and DRY_RUN are combined elsewhere. */
  dryRun: boolean;
  /** What to do about a denial, when the deciding rule knows better than the generic advice. */
  hint?: string;
  /** Who approves a proposal: the first matching rule that sets it, else the target's block, else the defaults. */
  approval: ApprovalLevel;
}

export function decide(policy: PolicyFile, req: PolicyRequest): PolicyDecision {
  const flags = targetFlags(policy, req.target.name);
  const checkpoint = checkpointMode(policy, req, flags.checkpoint);
  const approval = policy.rules.find((r) => r.approval !== undefined && ruleMatches(r, req))?.approval ?? flags.approval;
  const base = { ...flags, checkpoint, approval, overrideWouldHelp: false };

  if (req.targetIsAll && req.category !== 'read') {
    return { ...base, allowed: false, rule: 'target-all', reason: ownText(`target 'all' is only for reads; ${req.category} tools take exactly one named target`) };
  }

  const unknownClaim = policy.rules.find((r) => needsMissingGroups(r, req));
  if (unknownClaim) {
    return {
      ...base, allowed: false, rule: unknownClaim.name,
      reason: ownText(`rule '${unknownClaim.name}' decides by group, and the caller's token carries no groups claim, so the call is denied (a missing claim is never read as "no groups")`),
      hint: ownText('Have the identity provider put the groups claim into the access token (or its userinfo answer), then sign in again; see docs/identity-providers.md.'),
    };
  }

  for (const [i, entry] of policy.protected.entries()) {
    if (req.category === 'read' || !entry.categories.includes(req.category)) continue;
    const hit = protectedHit(entry, req);
    if (hit) {
      const name = entry.name ?? `protected[${i}]`;
      return { ...base, allowed: false, rule: name, reason: `${JSON.stringify(hit)} is protected by '${name}'; override does not apply to protected objects` };
    }
  }

  const unguarded = unguardedDownstream(policy, req);
  if (unguarded) return { ...base, ...unguarded };

  for (const rule of policy.rules) {
    if (rule.action === undefined || !ruleMatches(rule, req)) continue;
    if (rule.action === 'deny') {
      if (rule.unless_override && req.override) {
        return { ...base, allowed: true, rule: rule.name, reason: ownText(`rule '${rule.name}' denies this, overridden by override=true`) };
      }
      const help = rule.unless_override;
      return {
        ...base, allowed: false, rule: rule.name, overrideWouldHelp: help,
        reason: ownText(`denied by rule '${rule.name}'${help ? ' (pass override=true to proceed)' : ''}`),
      };
    }
    return { ...base, allowed: true, rule: rule.name, reason: ownText(`allowed by rule '${rule.name}'`) };
  }

  const targetBlock = policy.targets[req.target.name];
  const fromTarget = targetBlock?.[req.category];
  if (fromTarget !== undefined) {
    return {
      ...base, allowed: fromTarget === 'allow', rule: `target:${req.target.name}`,
      reason: ownText(`${req.category} is ${fromTarget === 'allow' ? 'allowed' : 'denied'} on target '${req.target.name}' by its policy block`),
    };
  }
  const fromDefaults = policy.defaults[req.category] ?? BUILTIN_DEFAULTS[req.category];
  return {
    ...base, allowed: fromDefaults === 'allow', rule: 'defaults',
    reason: ownText(`${req.category} is ${fromDefaults === 'allow' ? 'allowed' : 'denied'} by the policy defaults` +
      (fromDefaults === 'deny' ? `; allow it for target '${req.target.name}' in policy.yaml (targets.${req.target.name}.${req.category}: allow)` : '')),
  };
}

type Flags = Omit<PolicyDecision, 'allowed' | 'reason' | 'rule' | 'overrideWouldHelp'>;

/** Per-target flags: the target's block over the defaults over the built-in defaults. */
export function targetFlags(policy: PolicyFile, targetName: string): Flags {
  const t = policy.targets[targetName] ?? {};
  const d = policy.defaults;
  const pick = <K extends keyof typeof BUILTIN_DEFAULTS>(k: K) => (t[k] ?? d[k] ?? BUILTIN_DEFAULTS[k]) as (typeof BUILTIN_DEFAULTS)[K];
  return {
    checkpoint: pick('checkpoint'),
    requireWebApproval: pick('require_web_approval'),
    autoSnapshotBeforeDestroy: pick('auto_snapshot_before_destroy'),
    maxBulkObjects: pick('max_bulk_objects'),
    // Merged per category, like every other flag: a target that only tightens `destructive`
    // keeps the defaults' read and mutate limits.
    maxCallsPerMinute: { ...BUILTIN_DEFAULTS.max_calls_per_minute, ...perCategory(d.max_calls_per_minute), ...perCategory(t.max_calls_per_minute) },
    dryRun: pick('dry_run'),
    approval: pick('approval'),
  };
}

/** A number applies to every category; an object only to the categories it names. */
function perCategory(v: number | Partial<CallsPerMinute> | undefined): Partial<CallsPerMinute> {
  if (v === undefined) return {};
  if (typeof v === 'number') return { read: v, mutate: v, destructive: v };
  return Object.fromEntries(Object.entries(v).filter(([, n]) => n !== undefined));
}

function checkpointMode(policy: PolicyFile, req: PolicyRequest, fromTarget: CheckpointMode): CheckpointMode {
  for (const rule of policy.rules) {
    if (rule.checkpoint !== undefined && ruleMatches(rule, req)) return rule.checkpoint;
  }
  return fromTarget;
}

function protectedHit(entry: ProtectedEntry, req: PolicyRequest): string | undefined {
  if (entry.target_names && !entry.target_names.includes(req.target.name)) return undefined;
  for (const obj of req.objects) {
    if (obj.type !== 'vm') continue;
    if (entry.moids && obj.moid && entry.moids.includes(obj.moid)) return `${obj.name} (${obj.moid})`;
    if (entry.vm_patterns?.some((p) => fnmatch(obj.name, p))) return obj.name;
  }
  return undefined;
}

/** True when `rule` would match but for its `groups`, which the verified caller's token does not carry. */
function needsMissingGroups(rule: PolicyRule, req: PolicyRequest): boolean {
  if (!rule.match.groups || !req.caller || req.caller.groups !== undefined) return false;
  return ruleMatches({ ...rule, match: { ...rule.match, groups: undefined } }, req);
}

/** Match fields are ANDed; an absent field matches anything; list fields match when any entry does. */
export function ruleMatches(rule: PolicyRule, req: PolicyRequest): boolean {
  const m = rule.match;
  if (m.target_names && !m.target_names.includes(req.target.name)) return false;
  if (m.target_tags && !m.target_tags.some((t) => req.target.tags.includes(t))) return false;
  if (m.tools && !m.tools.some((t) => t === req.tool || t === req.category)) return false;
  if (m.users && !(req.caller && m.users.includes(req.caller.subject))) return false;
  if (m.groups && !(req.caller?.groups && m.groups.some((g) => req.caller!.groups!.includes(g)))) return false;
  const vms = req.objects.filter((o) => o.type === 'vm');
  if (m.vm_patterns && !vms.some((vm) => m.vm_patterns!.some((p) => fnmatch(vm.name, p)))) return false;
  if (m.folders && !req.objects.some((o) => o.folder !== undefined && m.folders!.some((f) => pathMatches(o.folder!, f)))) return false;
  if (m.resource_pools && !req.objects.some((o) => o.resourcePool !== undefined && m.resource_pools!.some((p) => pathMatches(o.resourcePool!, p)))) return false;
  return true;
}

/**
 * A folder or pool given by name matches that name anywhere; given as a path (with '/') it matches
 * that inventory path and everything below it.
 */
function pathMatches(objectPath: string, wanted: string): boolean {
  const clean = wanted.replace(/^\/+|\/+$/g, '');
  if (!clean.includes('/')) return objectPath.split('/').includes(clean);
  return objectPath === clean || objectPath.startsWith(`${clean}/`);
}

/**
 * `downstream_unlisted`: a downstream change that nothing ties to a VM (the tool is not in the
 * mutating catalog, its server has no `vm`) cannot be guarded, so it is denied unless the operator
 * allowed such calls. Override does not apply: it is about what the gateway can guard, not intent.
 */
function unguardedDownstream(policy: PolicyFile, req: PolicyRequest): Pick<PolicyDecision, 'allowed' | 'rule' | 'reason' | 'hint'> | undefined {
  if (!req.downstream?.unguarded || req.category === 'read' || policy.downstream_unlisted === 'allow') return undefined;
  const { server } = req.downstream;
  return {
    allowed: false, rule: 'downstream_unlisted',
    reason: `${JSON.stringify(req.tool)} may change something, but nothing says which VM it changes (it is not in the mutating catalog and its server has no 'vm' binding), so it is denied by downstream_unlisted: deny`,
    hint: `To guard it, catalogue it: add {"tool": ${JSON.stringify(req.tool)}, "vm_arg": "<the argument naming the VM>"} to mutating_tools in config.json ` +
      `(or call zerto_add_mutating_tool), or bind the server to its VM with downstream[].vm ("${server}"). ` +
      'To let such calls through unguarded, set downstream_unlisted: allow in policy.yaml. Nothing was forwarded.',
  };
}
