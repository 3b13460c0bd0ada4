// Which tools exist in this process, derived from the declarations and the configuration:
// destructive tools only with ENABLE_DESTRUCTIVE=true (structurally absent otherwise), the
// lifecycle tools whenever any two-phase tool is registered, get_change and cancel_change whenever
// any change is, vendor tools when their vendor is
// configured (the surface of the tool's toolset, tools/toolsets.ts). Also derives the advertised schemas.
import { z } from 'zod';
import { annotationsOf, isGuarded, isTwoPhase, type AnyTool } from '../../tools/define.js';
import { LIFECYCLE_TOOLS } from '../../tools/lifecycle/proposal-tools.js';
import { CHANGE_TOOLS } from '../../tools/lifecycle/change-tool-list.js';
import { ProposalSchema } from '../../pipeline/proposal.js';
import { portableSchema } from './portable-schema.js';
import { inSelection, parseToolsets, surfaceOf, toolsetProblem, type Surface } from '../../tools/toolsets.js';
import type { ToolServices } from '../../tools/services.js';

export interface RegistryOptions {
  enableDestructive: boolean;
  /** Register the lifecycle tools even when no declared tool is two-phase (gateway tools may become two-phase). */
  lifecycle?: boolean;
  /** TOOLSETS / --toolsets as given; unset serves the default sets. */
  toolsets?: string | undefined;
}

/** Whether a configuration offers a surface. Lab tools are only ever passed in by lab mode (or a test). */
const SURFACE_CONFIGURED: Record<Surface, (services: ToolServices) => boolean> = {
  vsphere: (s) => s.targets.length > 0 && s.ext.vsphere !== undefined,
  zerto: (s) => s.ext.zerto !== undefined,
  lifecycle: () => true,
  lab: () => true,
  // The gateway passes its declarations in only when downstream servers are configured.
  downstream: () => true,
};

export function selectTools(all: AnyTool[], services: ToolServices, opts: RegistryOptions): AnyTool[] {
  const lifecycle = new Set<AnyTool>([...LIFECYCLE_TOOLS, ...CHANGE_TOOLS]);
  const selection = parseToolsets(opts.toolsets, opts.enableDestructive);
  const problem = toolsetProblem(selection);
  if (problem) throw new Error(problem);
  const chosen = all.filter((t) => {
    if (lifecycle.has(t)) return false;
    if (!inSelection(t, selection)) return false;
    if (t.category === 'destructive' && !opts.enableDestructive) return false;
    return SURFACE_CONFIGURED[surfaceOf(t)](services);
  });
  const names = new Set<string>();
  for (const t of chosen) {
    if (names.has(t.name)) throw new Error(`tool ${t.name} is declared twice`);
    names.add(t.name);
  }
  // Gateway tools may become two-phase by policy, so a served downstream set brings the lifecycle.
  const gatewayTwoPhase = opts.lifecycle === true && selection.sets.has('downstream');
  // A change may outlive its call (a `running` answer): whoever can make one can follow, stop and
  // undo it; undo_change is two-phase, so the proposal lifecycle comes with it.
  const changes = opts.lifecycle === true || chosen.some((t) => t.category !== 'read' && !t.onProposal);
  const withLifecycle = gatewayTwoPhase || changes || chosen.some(isTwoPhase) ? [...chosen, ...LIFECYCLE_TOOLS] : chosen;
  return changes ? [...withLifecycle, ...CHANGE_TOOLS] : withLifecycle;
}

const GuardOutcomeSchema = z.looseObject({
  status: z.enum(['checkpointed', 'not_protected', 'unavailable', 'off', 'dry_run']),
  message: z.string(),
  tag: z.string().optional(),
  // Each checkpoint also has vpg_id, checkpoint_id, timestamp (and change_id, the audit_id): the
  // result carries them, the schema of every guarded change does not repeat them (tools/list budget).
  checkpoints: z.array(z.looseObject({ vpg: z.string() })),
});

const PIPELINE_FIELDS = {
  dry_run: z.boolean().optional().describe('True when nothing was changed because dry run is on.'),
  summary: z.string().optional(),
  affected: z.array(z.looseObject({ type: z.string(), name: z.string() })).optional(),
  checkpoint: GuardOutcomeSchema.optional().describe('The Zerto checkpoint pinned before the change, or why none was.'),
  audit_id: z.string().optional().describe('The id shared by every audit line of this call.'),
};

/** A change still running at the call bound answers these instead of its result (pipeline/change-watcher.ts). */
const RUNNING_FIELDS: Record<string, z.ZodType> = {
  state: z.literal('running'),
  change_id: z.string(),
  running: z.looseObject({ kind: z.string() }),
  progress: z.looseObject({ value: z.number() }),
  poll_after: z.number(),
  message: z.string(),
};

/** The output schema clients see: proposals for two-phase tools; changes add the pipeline's fields. */
export function advertisedOutput(tool: AnyTool): z.ZodObject {
  if (tool.onProposal || tool.category === 'read') return tool.output;
  if (isTwoPhase(tool)) return ProposalSchema;
  // Fields of the tool's own result are present when it executed, absent in a dry run and in a
  // `running` answer; a field name both use takes either value.
  const own = tool.output.partial();
  // The schemas allow fields they do not list, so the running answer's fields are not repeated in
  // every change's schema (the tools/list budget); a name the tool's own result uses too must
  // accept the running answer's value as well.
  const running: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(tool.followUp === false ? {} : RUNNING_FIELDS)) {
    const mine = own.shape[k] as z.ZodType | undefined;
    if (mine) running[k] = z.union([mine, v]);
  }
  // Only the guard step sets `checkpoint`: an unguarded tool's result never has it.
  const { checkpoint: _checkpoint, ...unguarded } = PIPELINE_FIELDS;
  return own.extend(running).extend(isGuarded(tool) ? PIPELINE_FIELDS : unguarded);
}

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Omit<ReturnType<typeof annotationsOf>, 'title'>;
}

/** The advertised JSON schemas of a declared tool, as `listed` derives them from its zod schemas. */
export interface ListedSchemas {
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

export function listed(tool: AnyTool): ListedTool {
  if (tool.listing) {
    const { inputSchema, outputSchema, annotations } = tool.listing;
    return { name: tool.name, title: tool.title, description: tool.description, inputSchema, ...(outputSchema ? { outputSchema } : {}), annotations };
  }
  let schemas = converted.get(tool);
  if (!schemas) {
    schemas = listedSchemas(tool);
    converted.set(tool, schemas);
  }
  const { inputSchema, outputSchema } = schemas;
  return { name: tool.name, title: tool.title, description: tool.description, inputSchema, outputSchema, annotations: hintsOf(tool) };
}

/**
 * Schemas by declaration, converted once: ahead of time by the bundle (seedSchemas) or at the first
 * listing. A declaration does not change once made, and a process that builds a server per HTTP
 * session (or per request, stateless) would otherwise convert every tool's schemas each time.
 */
const converted = new WeakMap<AnyTool, ListedSchemas>();

/** The zod -> JSON Schema conversion behind `listed` (also what the build precomputes). */
export function listedSchemas(tool: AnyTool): ListedSchemas {
  return { inputSchema: jsonSchema(tool.input, 'input'), outputSchema: jsonSchema(advertisedOutput(tool), 'output') };
}

/**
 * Lets `listed` use schemas converted at build time for these declarations, matched by name. Only
 * for this build's own declarations (a table from the same build): a tool that is not in the
 * table, or has its own `listing`, is converted as before.
 */
export function seedSchemas(tools: readonly AnyTool[], table: Readonly<Record<string, ListedSchemas>>): void {
  for (const tool of tools) {
    const pre = Object.hasOwn(table, tool.name) ? table[tool.name] : undefined;
    if (pre && !tool.listing) converted.set(tool, pre);
  }
}

/** The four hints; the display name is the tool's own `title`, so annotations do not repeat it. */
function hintsOf(tool: AnyTool): ListedTool['annotations'] {
  const { title: _title, ...hints } = annotationsOf(tool);
  return hints;
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return portableSchema(out, { lean: io === 'output' });
}

/** The toolset choice applied to tools that arrive while the process runs (the gateway's). */
export function selectDynamic(tools: AnyTool[], opts: RegistryOptions): AnyTool[] {
  const selection = parseToolsets(opts.toolsets, opts.enableDestructive);
  return tools.filter((t) => inSelection(t, selection));
}
