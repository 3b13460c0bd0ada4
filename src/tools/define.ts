// A tool is declared once, as data: name, category, schemas, its preconditions, how to resolve
// what it touches, and a handler. Registration, annotations, policy keys, audit fields, the tool
// reference (docs/tools.md) and the schema snapshots are derived from the declaration, and the pipeline applies the
// preconditions (single target, two-phase, guard, safety snapshot), so handlers hold no
// cross-cutting logic. The shape is documented in docs/ARCHITECTURE.md ("Declaring a tool").
import type { Via } from '../core/identity.js';
import type { HumanApprovalPort } from '../pipeline/human-approval.js';
import type { Principal } from '../core/principal.js';
import type { z } from 'zod';
import type { Category, PolicyFile } from '../config/policy-file.js';
import type { PolicyDecision, PolicyObject } from '../core/policy-engine.js';
import type { GuardPlan, GuardVm, PinReport, PinRequest } from '../core/guard.js';
import type { Renderer, ToolResult } from './tool-result.js';
import type { RequestingClient } from './requesting-client.js';
import type { ChangePatch, RunningWork } from '../core/change-record.js';
import type { ToolServices } from './services.js';
import type { SafetySnapshot } from '../pipeline/safety-snapshot.js';
import type { ToolOutcome } from '../pipeline/call.js';
import type { BeforeState, UndoItem } from '../core/undo-item.js';
import type { GuestPathTouched } from '../downstream/guest-paths.js';
import type { Toolset } from './toolsets.js';

export interface TargetRef {
  name: string;
  host: string;
  tags: string[];
  /** Per-target dry_run from targets.yaml (wins over DRY_RUN either way). */
  dryRun?: boolean;
}

export interface AffectedObject extends Record<string, unknown> {
  type: string;
  name: string;
  moid?: string;
  target?: string;
  /** For policy `folders` / `resource_pools` matching. */
  folder?: string;
  resource_pool?: string;
}

/**
 * What resolve hands the pipeline: the exact targets and objects of the call. A tool extends it
 * with what its execute needs (bound moids, a looked-up VPG) and declares that type on defineTool,
 * so execute receives it typed. A proposal keeps it whole, so a confirmation acts on exactly the
 * objects that were proposed.
 */
export interface Resolution {
  /** Reads: every target asked for (decided one by one). Changes: exactly one. */
  targets: TargetRef[];
  /** The caller wrote `target: "all"`. */
  targetIsAll?: boolean;
  affected: AffectedObject[];
  /** VMs the guard pins a checkpoint for; defaults to the affected VMs. Empty: nothing to guard. */
  guardVms?: GuardVm[];
  /** Objects a bulk call would touch; checked against max_bulk_objects before any proposal. */
  bulkCount?: number;
  /** One line naming the change, the objects and the target (proposals, audit, dry runs). */
  summary?: string;
  /**
   * Refusals that depend on the objects' state (a ghost record, a powered-on VM). The pipeline
   * runs them only after policy, rate and bulk limits allowed the call, before any proposal or
   * execution, so a call the policy denies is denied by the policy (and audited as such) rather
   * than refused for a state the agent might then "fix". A throw is audited as `denied`.
   */
  checks?: Array<() => void>;
  /**
   * A call the gateway forwards to a downstream server. `unguarded`: a change nothing ties to a VM
   * (not catalogued, its server not bound), which policy's `downstream_unlisted` decides.
   */
  downstream?: { server: string; unguarded: boolean };
  /**
   * Further targets a change touches (a guard call naming VMs of several vSphere targets): each is
   * decided by policy too, and any denial denies the call (the first target stays the audit's).
   */
  alsoDecidedOn?: TargetRef[];
  /** An undo_change: the change it undoes (its audit lines and change record say so). */
  undoOf?: string;
  /**
   * What of the resolution depends on the decision (a summary saying whether a safety snapshot is
   * taken; a bulk call's per-VM reads, spent only once max_bulk_objects let it through): the
   * pipeline runs it after the policy and limits steps, before any proposal, and keeps only what
   * it returns (a proposal holds the completed resolution).
   */
  afterPolicy?: (flags: DecisionFlags) => Promise<Partial<this>>;
  /**
   * A forwarded change: the guest paths its server's declared path arguments name (config
   * undo_paths), what an undo puts back. The `executing` audit line carries them (`guest_paths`).
   */
  guestPaths?: GuestPathTouched[];
}

/** The decision's per-target flags a resolution or a handler may depend on. */
export type DecisionFlags = Pick<PolicyDecision, 'autoSnapshotBeforeDestroy' | 'maxBulkObjects'>;

export interface ProgressReporter {
  (progress: number, total?: number, message?: string): void;
}

export interface CallContext {
  services: ToolServices;
  identity: string;
  /** The door the call came through: an MCP client, or the approval dashboard (a human). */
  via: Via;
  /** Set when a verified bearer token named the caller (HTTP mode): scopes, groups. */
  principal?: Principal;
  auditId: string;
  /**
   * One object per tool call, kept when the change watcher takes the call over: its steps read what
   * does not change within the call once (a target's inventory tree, CallOptions.scope).
   */
  callScope?: object;
  signal: AbortSignal;
  progress: ProgressReporter;
  /** How this MCP connection can ask the person to approve (elicitation); absent for the dashboard. */
  askHuman?: HumanApprovalPort;
  /** The MCP client that asked (absent for the dashboard's own calls). */
  client?: RequestingClient;
  /**
   * Set while a change is followed by the change watcher (pipeline/change-watcher.ts): a handler
   * says what it is waiting for (a vSphere task, an FLR session), so the `running` answer, get_change
   * and the next process after a crash know it. `workBudgetMs`: the budget of one wait, longer than
   * a call's because the call has answered and the server owns the wait.
   */
  change?: {
    running(work: RunningWork): void; executing(): void; pinned(checkpoint: Record<string, unknown>): void;
    /** What undo needs, into the change record: the before-state, the inverse items, an undo's results. */
    note(patch: Pick<ChangePatch, 'before' | 'inverse' | 'undo_results'>): void;
    workBudgetMs: number;
  };
}

export interface ExecContext extends CallContext {
  /** Targets the policy allowed (reads), in the order asked. */
  allowedTargets: TargetRef[];
  /** Targets the policy denied (reads), with the public error to put in their fan-out slot. */
  deniedTargets: Map<string, { code: 'policy_denied' | 'rate_limited'; message: string; retryable: boolean }>;
  /** The decision's per-target flags, as the policy step put them on the call (a dry run's wording of the safety snapshot). */
  flags: { autoSnapshotBeforeDestroy: boolean; dryRun: boolean };
  /** Safety snapshots the pipeline took before execute (the `safetySnapshot` precondition). */
  safetySnapshots: SafetySnapshot[];
  /** What the pin step pinned, for a tool whose change is the pin (`guard.pins`). */
  pinned?: PinReport;
}

/**
 * `safetySnapshot`: a revert-type change (it discards a VM's current state but keeps the VM). With
 * the target's auto_snapshot_before_destroy on, the pipeline takes a disk-only snapshot of every
 * resolved VM first, refuses the change if any fails, and adds them to the result as
 * `safety_snapshots`.
 */
export interface SafetySnapshotRule<A = Record<string, unknown>, R = Resolution> {
  /** The change as the refusal names it: "... so the <change> was NOT run". */
  change: string;
  /** Recorded in the snapshot's description: "Taken by zerto-rewind-mcp before <reason>". */
  reason?: (args: A, resolution: R) => string;
  /** Only some calls of the tool are revert-type (bulk: only revert_to_current_snapshot). */
  when?: (args: A) => boolean;
}

/**
 * The `undo` declaration: how a change records what undoing it needs, and what undoes it. The
 * pipeline reads the before-state after the decision (and the guard) and before the `executing`
 * line, writes it in that line and the change record, and refuses the change when it cannot be
 * read (fail closed: a change whose undo depends on it does not run without it). When the change
 * ends, `inverse` derives the items undo_change will propose (docs/undo.md).
 */
export interface UndoRule<A = Record<string, unknown>, R = Resolution> {
  /** Whether and how it can be undone, in a few words, for every proposal of the tool. */
  how: string | ((args: A) => string);
  /** One look at the objects (a constant number of round trips), or none. */
  before?: (args: A, resolution: R, ctx: CallContext) => Promise<BeforeState>;
  /** The items that undo it. `result` is undefined when the change failed after `executing`. */
  inverse: (x: { args: A; resolution: R; before: BeforeState | undefined; result: Record<string, unknown> | undefined; safety: SafetySnapshot[] }) => UndoItem[];
}

/** The guard precondition: `false` for tools that must not be guarded themselves. */
export type GuardRule<A = Record<string, unknown>, R = Resolution> = false | {
  /** The argument naming the VM, for the built-in catalog row of this tool (default 'vm'). */
  vmArg?: string;
  /**
   * A tool whose change is the pin itself: what the pin step pins (after the `executing` line)
   * instead of the guard step; undefined: nothing to pin (an unlisted tool passes through).
   */
  pins?: (args: A, resolution: R, ctx: CallContext) => PinOrder | undefined;
};

export interface PinOrder {
  plan: GuardPlan;
  request: Omit<PinRequest, 'signal'>;
  /** The tool's reading of the report: throws its refusal, else returns the `checkpointed` line's detail. */
  settle: (report: PinReport) => Record<string, unknown>;
  /** The arguments the `checkpointed` line records, when they are not the call's own (the hook records the call it guards). */
  args?: Record<string, unknown>;
}

/** Fields the pipeline adds to a change's result; a handler need not return them. */
type PipelineAdded = 'safety_snapshots';
export type HandlerOutput<O extends z.ZodObject> = Omit<z.infer<O>, PipelineAdded> & Partial<Pick<z.infer<O>, Extract<keyof z.infer<O>, PipelineAdded>>>;

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject, R extends Resolution = Resolution> {
  name: string;
  title: string;
  description: string;
  category: Category;
  /** Its set in tools/toolsets.ts TOOLSETS, which also says which configuration exposes it. */
  toolset: Toolset;
  idempotent: boolean;
  /** Talks to systems beyond the configured ones (never true here; kept explicit). */
  openWorld?: boolean;
  input: I;
  /** The result of executing. For two-phase tools this is what confirm_action's `result` holds. */
  output: O;

  // Preconditions, applied by the pipeline (docs/ARCHITECTURE.md, "Preconditions").
  /**
   * Destructive tools are always two-phase; others may opt in (zerto_recover_file), or say how the
   * policy the call is decided under makes them two-phase (a gateway tool: downstream_two_phase).
   */
  twoPhase?: boolean | ((policy: PolicyFile) => boolean);
  /** The `target` argument must name exactly one target: "all" is denied (and audited) by policy. */
  singleTarget?: boolean;
  /** Take a safety snapshot of the resolved VMs before executing ('before': the defaults). */
  safetySnapshot?: 'before' | SafetySnapshotRule<z.infer<I>, R>;
  /** Changes are guarded by default (a checkpoint for the resolved VMs); false opts out. */
  guard?: GuardRule<z.infer<I>, R>;
  /** What undoes the change (before-state, inverse items); absent: the proposal says it records none. */
  undo?: UndoRule<z.infer<I>, R>;
  /**
   * `false`: the change always ends within its call (cancel_change), so the change watcher does
   * not follow it past the call bound and keeps no change record of it.
   */
  followUp?: false;
  /**
   * Overrides the annotation derived from the category, for the rare tool whose effect is not
   * its category's: confirm_action is a lifecycle call that executes destructive proposals.
   */
  destructiveHint?: boolean;
  /**
   * A tool whose schemas and result belong to someone else (a downstream server's, re-exported by
   * the gateway): the listing advertises these JSON schemas and annotations as they are, instead
   * of the ones derived from the zod schemas and the category.
   */
  listing?: {
    inputSchema: Record<string, unknown>;
    outputSchema?: Record<string, unknown>;
    annotations: Omit<ReturnType<typeof annotationsOf>, 'title'> & { title?: string };
  };
  /**
   * Renders the outcome instead of the default (the gateway returns a downstream's result as it
   * came); `render` is the default renderer, for the outcomes it does not present itself.
   */
  present?: (outcome: ToolOutcome, secrets: readonly string[], render: Renderer<ToolOutcome>) => ToolResult;

  /**
   * A lifecycle tool's handler: it acts on proposals, not on objects, so the call runs the
   * lifecycle steps (validate, then this); a refusal of the proposal throws a ProposalRefusal.
   */
  onProposal?: (args: z.infer<I>, ctx: CallContext) => Promise<z.infer<O>>;
  resolve?: (args: z.infer<I>, ctx: CallContext) => Promise<R>;
  execute?: (args: z.infer<I>, resolution: R, ctx: ExecContext) => Promise<HandlerOutput<O>>;
  /** What a dry run reports instead of executing; defaults to the summary and affected objects. */
  dryRun?: (args: z.infer<I>, resolution: R, ctx: ExecContext) => Promise<Record<string, unknown>>;
}

// Variance: the registry holds tools of many schemas; handlers are only ever called with args
// that were parsed by the same tool's schema and the resolution that tool's resolve returned.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any, any>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject, R extends Resolution = Resolution>(def: ToolDefinition<I, O, R>): ToolDefinition<I, O, R> {
  return def;
}

/** Whether the tool is, or under some policy may be, two-phase (registration, docs, advertised output). */
export function isTwoPhase(tool: AnyTool): boolean {
  return tool.category === 'destructive' || tool.twoPhase === true || typeof tool.twoPhase === 'function';
}

/** Whether this call is two-phase, under the policy its decision was made with. */
export function isTwoPhaseUnder(tool: AnyTool, policy: PolicyFile): boolean {
  if (typeof tool.twoPhase === 'function') return tool.category === 'destructive' || tool.twoPhase(policy);
  return isTwoPhase(tool);
}

/** Whether the guard step runs for this tool (a change that did not opt out and is not a pin itself). */
export function isGuarded(tool: AnyTool): boolean {
  return tool.category !== 'read' && !tool.onProposal && tool.guard !== false && !tool.guard?.pins;
}

export function policyObjects(affected: AffectedObject[]): PolicyObject[] {
  return affected.map((a) => {
    const o: PolicyObject = { type: a.type, name: a.name };
    if (a.moid) o.moid = a.moid;
    if (a.folder) o.folder = a.folder;
    if (a.resource_pool) o.resourcePool = a.resource_pool;
    return o;
  });
}

/** MCP annotations, derived: reads are read-only; only destructive tools are destructive. */
export function annotationsOf(tool: AnyTool) {
  return {
    title: tool.title,
    readOnlyHint: tool.category === 'read',
    destructiveHint: tool.destructiveHint ?? tool.category === 'destructive',
    idempotentHint: tool.idempotent,
    openWorldHint: tool.openWorld ?? false,
  };
}
