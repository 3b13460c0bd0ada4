// policy.yaml: what is allowed where. vmware-mcp's model (protected -> rules -> targets ->
// defaults) plus `checkpoint:` for the Zerto guard. Parsed here; decided in core/policy-engine.ts.
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import { zodProblems, type ConfigProblem } from './problems.js';

export const CATEGORIES = ['read', 'mutate', 'destructive'] as const;
export type Category = (typeof CATEGORIES)[number];
export const CHECKPOINT_MODES = ['required', 'best_effort', 'off'] as const;
export type CheckpointMode = (typeof CHECKPOINT_MODES)[number];
/**
 * Who may approve a two-phase proposal (destructive changes, file restores):
 *   single         whoever holds the token, the model included (confirm_action);
 *   human          a person: asked through the client (elicitation) when it can, else the dashboard;
 *   dashboard      a person in the dashboard only;
 *   second_person  a verified user other than the requester, in the dashboard (central mode).
 */
export const APPROVAL_LEVELS = ['single', 'human', 'dashboard', 'second_person'] as const;
export type ApprovalLevel = (typeof APPROVAL_LEVELS)[number];

const Action = z.enum(['allow', 'deny']);
const CallsPerMinute = z.union([
  z.number().int().positive(),
  z.object({ read: z.number().int().positive(), mutate: z.number().int().positive(), destructive: z.number().int().positive() })
    .partial().strict(),
]);

/** Keys shared by `defaults` and each `targets.<name>` block. */
const TargetBlockShape = {
  read: Action,
  mutate: Action,
  destructive: Action,
  checkpoint: z.enum(CHECKPOINT_MODES),
  require_web_approval: z.boolean(),
  auto_snapshot_before_destroy: z.boolean(),
  max_bulk_objects: z.number().int().positive(),
  max_calls_per_minute: CallsPerMinute,
  dry_run: z.boolean(),
  /** Who may approve a proposal (APPROVAL_LEVELS); `human` unless the operator says otherwise. */
  approval: z.enum(APPROVAL_LEVELS),
};

const TargetBlock = z.object(TargetBlockShape).partial().strict();

const MatchSchema = z
  .object({
    target_names: z.array(z.string().min(1)).min(1),
    target_tags: z.array(z.string().min(1)).min(1),
    tools: z.array(z.string().min(1)).min(1),
    vm_patterns: z.array(z.string().min(1)).min(1),
    folders: z.array(z.string().min(1)).min(1),
    resource_pools: z.array(z.string().min(1)).min(1),
    /** Verified callers (HTTP mode): token subjects, or groups from the token's groups claim. */
    users: z.array(z.string().min(1)).min(1),
    groups: z.array(z.string().min(1)).min(1),
  })
  .partial()
  .strict();

const RuleSchema = z
  .object({
    name: z.string().min(1),
    match: MatchSchema.default({}),
    action: Action.optional(),
    unless_override: z.boolean().default(false),
    checkpoint: z.enum(CHECKPOINT_MODES).optional(),
    approval: z.enum(APPROVAL_LEVELS).optional(),
  })
  .strict()
  .refine((r) => r.action !== undefined || r.checkpoint !== undefined || r.approval !== undefined, {
    message: 'a rule needs an action (allow|deny), a checkpoint mode, an approval, or several',
  });

const ProtectedSchema = z
  .object({
    name: z.string().min(1).optional(),
    target_names: z.array(z.string().min(1)).min(1).optional(),
    vm_patterns: z.array(z.string().min(1)).min(1).optional(),
    moids: z.array(z.string().min(1)).min(1).optional(),
    /** Which categories the protection blocks; destructive by default. */
    categories: z.array(z.enum(['mutate', 'destructive'])).min(1).default(['destructive']),
  })
  .strict()
  .refine((p) => p.vm_patterns !== undefined || p.moids !== undefined, {
    message: 'a protected entry names objects: vm_patterns, moids, or both',
  });

export const PolicyFileSchema = z
  .object({
    confirmation_ttl_seconds: z.number().int().min(5).max(86_400).optional(),
    defaults: TargetBlock.default({}),
    targets: z.record(z.string(), TargetBlock).default({}),
    protected: z.array(ProtectedSchema).default([]),
    rules: z.array(RuleSchema).default([]),
    /** Gateway: a downstream mutating tool that is neither catalogued nor on a server bound to a VM. */
    downstream_unlisted: Action.default('deny'),
    /** Gateway: downstream tools annotated destructiveHint: true go through proposal + confirm_action. */
    downstream_two_phase: z.boolean().default(false),
    /**
     * Client-credentials clients (services, not people) that may count as the second person under
     * `second_person`, e.g. a change-approval bot. Any other service never approves as a person.
     */
    service_approvers: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type PolicyFile = z.infer<typeof PolicyFileSchema>;
export type PolicyRule = z.infer<typeof RuleSchema>;
export type ProtectedEntry = z.infer<typeof ProtectedSchema>;
export type TargetPolicyBlock = z.infer<typeof TargetBlock>;

/** The shipped defaults: strict. Reads allowed, mutations allowed and guarded, destruction denied. */
export const BUILTIN_DEFAULTS: Required<Omit<TargetPolicyBlock, 'max_calls_per_minute'>> & {
  max_calls_per_minute: { read: number; mutate: number; destructive: number };
} = {
  read: 'allow',
  mutate: 'allow',
  destructive: 'deny',
  checkpoint: 'best_effort',
  require_web_approval: false,
  auto_snapshot_before_destroy: true,
  max_bulk_objects: 10,
  max_calls_per_minute: { read: 600, mutate: 60, destructive: 20 },
  dry_run: false,
  // A person approves destructive changes and file restores (every two-phase proposal), not the
  // model that proposed them.
  approval: 'human',
};

export function parsePolicy(text: string, file: string): { policy?: PolicyFile; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    return { problems: [{ file, path: '', reason: `not valid YAML: ${(err as Error).message}` }] };
  }
  const parsed = PolicyFileSchema.safeParse(raw);
  if (!parsed.success) return { problems: zodProblems(file, parsed.error) };
  return { policy: parsed.data, problems: [] };
}

/** Used when no policy file exists: the strict built-in defaults and nothing else. */
export const EMPTY_POLICY: PolicyFile = { defaults: {}, targets: {}, protected: [], rules: [], downstream_unlisted: 'deny', downstream_two_phase: false, service_approvers: [] };
