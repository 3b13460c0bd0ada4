// A tool is declared once, as data: name, category, schemas, how to resolve what it touches, and a
// handler. Registration, annotations, policy keys, audit fields, the README table and the schema
// snapshots are all derived from this declaration; handlers hold no cross-cutting logic.
import type { z } from 'zod';
import type { Category } from '../config/policy-file.js';
import type { PolicyObject } from '../core/policy-engine.js';
import type { GuardVm } from '../core/guard.js';
import type { ToolServices } from './services.js';

export type Surface = 'vsphere' | 'zerto' | 'lifecycle' | 'lab';

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
}

export interface ProgressReporter {
  (progress: number, total?: number, message?: string): void;
}

export interface CallContext {
  services: ToolServices;
  identity: string;
  auditId: string;
  signal: AbortSignal;
  progress: ProgressReporter;
}

export interface ExecContext extends CallContext {
  /** Targets the policy allowed (reads), in the order asked. */
  allowedTargets: TargetRef[];
  /** Targets the policy denied (reads), with the public error to put in their fan-out slot. */
  deniedTargets: Map<string, { code: 'policy_denied' | 'rate_limited'; message: string; retryable: boolean }>;
  /** The decision's per-target flags, for tools that act on them (auto-snapshot). */
  flags: { autoSnapshotBeforeDestroy: boolean; dryRun: boolean };
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  category: Category;
  surface: Surface;
  /** Destructive tools are always two-phase; others may opt in (zerto_recover_file). */
  twoPhase?: boolean;
  idempotent: boolean;
  /** Talks to systems beyond the configured ones (never true here; kept explicit). */
  openWorld?: boolean;
  input: I;
  /** The result of executing. For two-phase tools this is what confirm_action's `result` holds. */
  output: O;
  /** Registered only when this returns true (e.g. Zerto tools need a Zerto site). */
  enabled?: (services: ToolServices) => boolean;
  /** Lifecycle tools run their own short path (they are the pipeline's second half). */
  direct?: (args: z.infer<I>, ctx: CallContext) => Promise<z.infer<O>>;
  resolve?: (args: z.infer<I>, ctx: CallContext) => Promise<Resolution>;
  execute?: (args: z.infer<I>, resolution: Resolution, ctx: ExecContext) => Promise<z.infer<O>>;
  /** What a dry run reports instead of executing; defaults to the summary and affected objects. */
  dryRun?: (args: z.infer<I>, resolution: Resolution, ctx: ExecContext) => Promise<Record<string, unknown>>;
  /** Tools that must not be guarded themselves (the Zerto checkpoint tools, catalog edits). */
  unguarded?: boolean;
  /**
   * Overrides the annotation derived from the category, for the rare tool whose effect is not
   * its category's: confirm_action is a lifecycle call that executes destructive proposals.
   */
  destructiveHint?: boolean;
}

// Variance: the registry holds tools of many schemas; handlers are only ever called with args
// that were parsed by the same tool's schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any, any>;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return def;
}

export function isTwoPhase(tool: AnyTool): boolean {
  return tool.category === 'destructive' || tool.twoPhase === true;
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
