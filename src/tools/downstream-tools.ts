// The gateway, as tool declarations: each downstream server's tool becomes one more declaration
// that runs the same pipeline as this server's own tools. Validate against the downstream's JSON
// schema; policy with category `read` for readOnlyHint tools, else `mutate`, on the bound VM's
// vSphere target (else the downstream server's name); the guard pins a checkpoint for the VM a
// catalogued tool names through `vm_arg`, or for the `vm` the server is bound to; then forward,
// and return the downstream's result, fenced and marked as data, with the checkpoint facts beside
// it. Everything the pipeline needs is said through the declaration, so this file is the whole
// adapter.
import { z } from 'zod';
import { AppError } from '../core/errors.js';
import { vmsFromArgs } from '../core/catalog.js';
import type { GuardOutcome, GuardVm } from '../core/guard.js';
import type { DownstreamManager, ExportedTool } from '../downstream/manager.js';
import { compileJsonSchema, type DownstreamResult, type DownstreamTool, type SchemaCheck } from '../downstream/downstream-tool.js';
import { ChangeIdArg, OverrideArg } from './args.js';
import { defineTool, type AffectedObject, type AnyTool, type CallContext, type Resolution, type TargetRef } from './define.js';
import type { Renderer, ToolResult } from './tool-result.js';
import type { ToolOutcome } from './pipeline-call.js';
import { fenced, markOf, newFenceId, UNTRUSTED_META_KEY, withMark } from './untrusted.js';

/** Arguments the gateway adds to a downstream tool (unless the tool has its own of that name); never forwarded. */
const GATEWAY_ARGS = {
  override: OverrideArg,
  change_id: ChangeIdArg.optional(),
};
const META_KEY = 'zerto-rewind/gateway';

/**
 * Reads of a bound server only need the VM's vSphere target for the policy decision; finding it
 * lists every target's VMs, so it is remembered for a minute. Changes always look it up afresh.
 */
const READ_LOCATION_TTL_MS = 60_000;
type LocationCache = Map<string, { at: number; located: Located }>;
/** One cache per downstream server (its tools share the bound VM), gone with the server. */
const readLocationsOf = new WeakMap<ExportedTool['connection'], LocationCache>();

interface Bound {
  /** The VMs the call changes, as the guard takes them. */
  vms: GuardVm[];
  why: 'catalog' | 'bound' | 'unlisted' | 'read';
}

export function downstreamDeclaration(x: ExportedTool): AnyTool {
  const { tool, server, connection } = x;
  const readOnly = tool.annotations?.readOnlyHint === true;
  // MCP's defaults: a tool that is not read-only is destructive unless it says otherwise.
  const destructive = !readOnly && tool.annotations?.destructiveHint !== false;
  const ownProps = new Set(Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>));
  const gatewayArgs = readOnly ? [] : Object.keys(GATEWAY_ARGS).filter((k) => !ownProps.has(k));
  const readLocations = readLocationsOf.get(connection) ?? new Map();
  readLocationsOf.set(connection, readLocations);
  const validate = compileInputSchema(tool);

  const input = z.looseObject({}).superRefine((value, issue) => {
    const res = validate(stripGatewayArgs(value, gatewayArgs));
    if (!res.valid) for (const e of splitAjvErrors(res.errorMessage)) issue.addIssue({ code: 'custom', ...e });
    for (const k of gatewayArgs) {
      const own = GATEWAY_ARGS[k as keyof typeof GATEWAY_ARGS].safeParse(value[k]);
      if (!own.success) issue.addIssue({ code: 'custom', path: [k], message: own.error.issues[0]?.message ?? 'invalid' });
    }
  });

  const declaration = defineTool({
    name: x.name,
    title: tool.title ?? tool.annotations?.title ?? `${server}: ${tool.name}`,
    description: `[${server}] ${tool.description ?? tool.name}${readOnly ? '' : ' (Through zerto-rewind: policy-checked, checkpointed when it changes a protected VM, audited.)'}`,
    category: readOnly ? 'read' : 'mutate',
    surface: 'downstream',
    toolset: 'downstream',
    idempotent: tool.annotations?.idempotentHint ?? false,
    openWorld: tool.annotations?.openWorldHint ?? true,
    input,
    output: z.looseObject({}),
    listing: {
      inputSchema: advertisedInput(tool, gatewayArgs),
      // A change may answer with a proposal or a dry run instead of the downstream's result, so
      // only read tools keep the downstream's output schema.
      ...(readOnly && tool.outputSchema ? { outputSchema: openOutputSchema(tool.outputSchema as Record<string, unknown>) } : {}),
      annotations: {
        title: tool.annotations?.title ?? tool.title ?? `${server}: ${tool.name}`,
        readOnlyHint: readOnly, destructiveHint: destructive,
        idempotentHint: tool.annotations?.idempotentHint ?? false, openWorldHint: tool.annotations?.openWorldHint ?? true,
      },
    },
    async resolve(args, ctx) {
      return resolveCall(x, args, ctx, readLocations);
    },
    async execute(args, _resolution, ctx) {
      const forwarded = stripGatewayArgs(args, gatewayArgs);
      const result = await connection.call(tool.name, forwarded, {
        signal: ctx.signal,
        onprogress: (p) => ctx.progress(p.progress, p.total, p.message),
      });
      return { downstream: server, downstream_tool: tool.name, is_error: result.isError === true, result };
    },
    // Two-phase under the policy the call is decided with (it hot-reloads): downstream_two_phase
    // makes a destructiveHint tool a proposal first; confirm_action forwards it.
    twoPhase: destructive ? (rules) => rules.downstream_two_phase : false,
    async dryRun(args) {
      return { would: `forward '${tool.name}' to downstream server '${server}' with ${JSON.stringify(stripGatewayArgs(args, gatewayArgs)).slice(0, 300)}` };
    },
    present: (outcome, secrets, render) => present(x, outcome, secrets, render),
  });
  return declaration as AnyTool;
}

/**
 * A validator for the downstream's input schema. A schema the validator cannot compile fails
 * closed: every call is refused as invalid input, saying why, rather than forwarded unchecked.
 */
function compileInputSchema(tool: DownstreamTool): SchemaCheck {
  const schema: Record<string, unknown> = { ...tool.inputSchema };
  // The meta-schema version is the downstream's business; the validator checks the keywords.
  delete schema.$schema;
  try {
    return compileJsonSchema(schema);
  } catch (err) {
    const why = `the downstream's input schema for '${tool.name}' cannot be compiled (${(err as Error).message}), so no call to it is forwarded`;
    return () => ({ valid: false, errorMessage: why });
  }
}

/** What the call touches: the bound or named VM(s), their vSphere target, and what guards it. */
async function resolveCall(x: ExportedTool, args: Record<string, unknown>, ctx: CallContext, readLocations: LocationCache): Promise<Resolution> {
  const readOnly = x.tool.annotations?.readOnlyHint === true;
  const bound = await boundVms(x, args, ctx, readOnly);
  const located = await Promise.all(bound.vms.map((vm) => (readOnly ? locateForRead(ctx, vm.name, x.name, readLocations) : locate(ctx, vm.name, x.name))));
  const homes = [...new Set(located.map((l) => l.target).filter((t): t is string => t !== undefined))];
  if (homes.length > 1) {
    throw new AppError('invalid_input', `'${x.name}' would change VMs on ${homes.length} vSphere targets (${homes.join(', ')}); a change has exactly one target.`, {
      hint: 'Make one call per target.',
    });
  }
  const target = (homes[0] ? configuredTarget(ctx, homes[0]) : undefined) ?? serverTarget(x.server);
  const affected: AffectedObject[] = [
    ...located.map((l) => ({ type: 'vm', name: l.name, ...(l.moid ? { moid: l.moid } : {}), ...(l.target ? { target: l.target } : {}) })),
    { type: 'downstream_tool', name: x.tool.name, server: x.server },
  ];
  // The guard step pins for the affected VMs (a read skips it); policy's downstream_unlisted
  // decides a change nothing ties to a VM. Both are the pipeline's, not this adapter's.
  return {
    targets: [target],
    affected,
    summary: `${x.tool.name} on downstream server '${x.server}'${located.length ? ` (changes VM ${located.map((l) => `'${l.name}'`).join(', ')})` : ''}`,
    downstream: { server: x.server, unguarded: bound.why === 'unlisted' },
  };
}

async function boundVms(x: ExportedTool, args: Record<string, unknown>, ctx: CallContext, readOnly: boolean): Promise<Bound> {
  // A read never asks the catalog: with the shared catalog unreachable, reads keep working and
  // only changes fail closed (the lookup rejects as `unavailable`).
  const entry = readOnly ? undefined : await ctx.services.ext.catalog?.find(x.name);
  if (entry) {
    const names = vmsFromArgs(args, entry.vm_arg);
    if (names.length === 0) {
      throw new AppError('invalid_input', `'${x.name}' is catalogued with vm_arg '${entry.vm_arg}', but the arguments name no VM there, so the guard cannot tell which VM it changes.`, {
        hint: `Pass '${entry.vm_arg}' (the VM name, hostname or IP). Nothing was forwarded.`, details: { vm_arg: entry.vm_arg },
      });
    }
    return { vms: names.map((name) => ({ name })), why: 'catalog' };
  }
  const vm = x.connection.config.vm;
  if (vm) return { vms: [{ name: vm }], why: readOnly ? 'read' : 'bound' };
  return { vms: [], why: readOnly ? 'read' : 'unlisted' };
}

interface Located extends GuardVm {
  name: string;
}

async function locateForRead(ctx: CallContext, name: string, toolName: string, readLocations: LocationCache): Promise<Located> {
  const hit = readLocations.get(name);
  if (hit && Date.now() - hit.at < READ_LOCATION_TTL_MS) return hit.located;
  const located = await locate(ctx, name, toolName);
  readLocations.set(name, { at: Date.now(), located });
  return located;
}

/** The VM's vSphere home, when vSphere knows it: exactly one match, or the call is refused. */
async function locate(ctx: CallContext, name: string, toolName: string): Promise<Located> {
  const locator = ctx.services.ext.locator ?? ctx.services.ext.zerto?.locator;
  if (!locator) return { name };
  const hits = await locator.resolveHostOrName(name, { signal: ctx.signal });
  if (hits.length > 1) {
    throw new AppError('ambiguous_name', `'${name}' (the VM ${toolName} changes) matches ${hits.length} VMs; the guard will not guess.`, {
      hint: 'Name the VM exactly (its vSphere name), or bind the downstream server with an unambiguous vm.',
      details: { candidates: hits.map((h) => ({ target: h.target, moid: h.moid, name: h.name })) },
    });
  }
  const hit = hits[0];
  return hit ? { name: hit.name, target: hit.target, moid: hit.moid } : { name };
}

function configuredTarget(ctx: CallContext, name: string): TargetRef | undefined {
  const t = ctx.services.targets.find((x) => x.name === name);
  return t ? { name: t.name, host: t.host, tags: t.tags, ...(t.dryRun !== undefined ? { dryRun: t.dryRun } : {}) } : undefined;
}

/** A downstream server as a policy target (policy.yaml `targets.<server>` applies). */
function serverTarget(server: string): TargetRef {
  return { name: server, host: `downstream:${server}`, tags: ['downstream'] };
}

function stripGatewayArgs(args: Record<string, unknown>, gatewayArgs: string[]): Record<string, unknown> {
  const out = { ...args };
  for (const k of gatewayArgs) delete out[k];
  return out;
}

function advertisedInput(tool: DownstreamTool, gatewayArgs: string[]): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...tool.inputSchema };
  delete schema.$schema;
  if (gatewayArgs.length === 0) return schema;
  const extra = z.toJSONSchema(z.object(Object.fromEntries(gatewayArgs.map((k) => [k, GATEWAY_ARGS[k as keyof typeof GATEWAY_ARGS]]))), { io: 'input' }) as { properties: Record<string, unknown> };
  return { ...schema, type: 'object', properties: { ...((schema.properties ?? {}) as Record<string, unknown>), ...extra.properties } };
}

/** Ajv's "data/path must ..., data must ..." as one issue per field. */
function splitAjvErrors(text: string): Array<{ path: string[]; message: string }> {
  return text.split(/, (?=data)/).map((part) => {
    const m = /^data(\/[^ ]*)? (.*)$/.exec(part);
    if (!m) return { path: [], message: part };
    return { path: (m[1] ?? '').split('/').filter(Boolean), message: m[2]! };
  });
}

/**
 * The downstream's result, as data: each text block becomes a JSON string in one fence, its
 * structuredContent keeps every field and gains the `_untrusted` marking (all its strings are the
 * other server's), then one fenced line and the checkpoint facts in _meta. Other blocks (images,
 * resources) pass as they came. Proposals, dry runs and errors render as for any tool.
 */
function present(x: ExportedTool, outcome: ToolOutcome, secrets: readonly string[], render: Renderer<ToolOutcome>): ToolResult {
  if (!outcome.ok || !outcome.value.result) return render(outcome, secrets);
  const value = render(outcome, secrets).structuredContent as { result: DownstreamResult; checkpoint?: GuardOutcome; audit_id?: string };
  const result = value.result;
  const cp = value.checkpoint;
  const facts = {
    downstream: x.server, tool: x.tool.name, ...(value.audit_id ? { audit_id: value.audit_id } : {}),
    ...(cp ? { checkpoint: { status: cp.status, tag: cp.tag ?? null, vpgs: [...new Set(cp.checkpoints.map((c) => c.vpg))], change_id: cp.change_id, message: cp.message } } : {}),
  };
  // The line names VMs and VPGs, which are upstream text as well.
  const line = cp ? `[zerto-rewind] ${cp.message}` : undefined;
  const fence = newFenceId();
  const structured = result.structuredContent;
  const mark = markOf(structured ?? (result.content ?? []).map((c) => (c.type === 'text' ? c.text : '')), fence, true);
  const content = [...(result.content ?? []), ...(line ? [{ type: 'text' as const, text: line }] : [])]
    .map((c) => (c.type === 'text' ? { ...c, text: fenced(JSON.stringify(c.text), fence) } : c));
  return {
    ...result,
    content,
    // Only an object can take the marking as a field; anything else keeps it in _meta alone.
    ...(isPlainObject(structured) ? { structuredContent: withMark(structured, mark) } : {}),
    _meta: { ...(result._meta ?? {}), [META_KEY]: facts, [UNTRUSTED_META_KEY]: mark },
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A read tool keeps the downstream's output schema, opened at the top so the `_untrusted` marking
 * the gateway adds to structuredContent validates.
 */
function openOutputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { additionalProperties, ...rest } = schema;
  return additionalProperties === false ? rest : schema;
}

/** list_downstream: each downstream server's state, without its environment values. */
export function listDownstreamTool(manager: DownstreamManager): AnyTool {
  return defineTool({
    name: 'list_downstream',
    title: 'List the downstream MCP servers behind this one',
    description:
      'Lists the MCP servers this server starts and guards (config.json downstream): name, state (starting, ready, restarting, stopped), ' +
      'tool count, last error, restarts, the VM it is bound to, and tools left out for invalid or colliding names. Their tools are ' +
      'exposed as <server>__<tool>, and every call to them runs this server\'s policy, checkpoint guard and audit.',
    category: 'read',
    surface: 'downstream',
    toolset: 'downstream',
    idempotent: true,
    input: z.object({}),
    output: z.object({
      servers: z.array(z.object({
        name: z.string(), state: z.enum(['starting', 'ready', 'restarting', 'stopped']), transport: z.enum(['stdio', 'http']),
        tool_count: z.number(), last_error: z.string().nullable(), restarts: z.number(), vm: z.string().nullable(),
        env_keys: z.array(z.string()).describe('Names of the variables passed to it; values are never shown.'),
        refused_tools: z.array(z.string()),
      })),
    }),
    async resolve() {
      return { targets: [], affected: [] };
    },
    async execute() {
      return { servers: manager.status() };
    },
  });
}

/** Every current downstream tool as a declaration. */
export function downstreamDeclarations(manager: DownstreamManager): AnyTool[] {
  return manager.tools().map((x) => downstreamDeclaration(x));
}
