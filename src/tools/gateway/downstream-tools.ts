// The gateway, as tool declarations: each downstream server's tool becomes one more declaration
// that runs the same pipeline as this server's own tools. Validate against the downstream's JSON
// schema; policy with category `read` for readOnlyHint tools, else `mutate`, on the bound VM's
// vSphere target (else the downstream server's name); the guard pins a checkpoint for the VM a
// catalogued tool names through `vm_arg`, or for the `vm` the server is bound to; then forward,
// and return the downstream's result, fenced and marked as data, with the checkpoint facts beside
// it. Everything the pipeline needs is said through the declaration, so this file is the whole
// adapter.
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { vmsFromArgs } from '../../core/catalog.js';
import type { GuardVm } from '../../core/guard.js';
import { compileSchemaCheck, normalisedSchema, type SchemaCheck } from '../../downstream/downstream-schema.js';
import type { DownstreamManager, ExportedTool } from '../../downstream/manager.js';
import { touchedGuestPaths } from '../../downstream/guest-paths.js';
import { forwardToDownstream } from '../../downstream/forward.js';
import { ChangeIdArg, OverrideArg } from '../args.js';
import { configuredTarget } from '../services.js';
import { defineTool, type AffectedObject, type AnyTool, type CallContext, type Resolution, type TargetRef } from '../define.js';
import { downstreamListingText } from './downstream-listing.js';
import { presentDownstreamResult } from './downstream-result.js';
import { quoted } from '../../mcp/output/quote.js';
import { ownText } from '../../core/own-text.js';

/** Arguments the gateway adds to a downstream tool (unless the tool has its own of that name); never forwarded. */
const GATEWAY_ARGS = {
  override: OverrideArg,
  change_id: ChangeIdArg.optional(),
};

export interface DeclarationOptions {
  /** Known secret values, cut out of the listing and of relayed progress messages. */
  secrets?: () => readonly string[];
  /** A read-declared tool turned out catalogued: the gateway re-declares it as a change. */
  onCatalogued?: (name: string) => void;
}

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

export function downstreamDeclaration(x: ExportedTool, opts: DeclarationOptions = {}): AnyTool {
  const { tool, server, connection, readOnly } = x;
  const secrets = opts.secrets ?? (() => []);
  // MCP's defaults: a tool that is not read-only is destructive unless it says otherwise.
  const destructive = !readOnly && tool.annotations?.destructiveHint !== false;
  const inputSchema = normalisedSchema(tool.inputSchema as Record<string, unknown>);
  const ownProps = new Set(Object.keys((inputSchema.properties ?? {}) as Record<string, unknown>));
  const gatewayArgs = readOnly ? [] : Object.keys(GATEWAY_ARGS).filter((k) => !ownProps.has(k));
  const readLocations = readLocationsOf.get(connection) ?? new Map();
  readLocationsOf.set(connection, readLocations);
  const validate = compileInputSchema(tool.name, inputSchema);
  // A change may answer with a proposal or a dry run instead of the downstream's result, so
  // only read tools keep the downstream's output schema.
  const outputSchema = readOnly && tool.outputSchema ? openOutputSchema(normalisedSchema(tool.outputSchema as Record<string, unknown>)) : undefined;
  // Marked before the gateway's own arguments join it: their descriptions are this server's words.
  const text = downstreamListingText(server, tool, { input: inputSchema, ...(outputSchema ? { output: outputSchema } : {}) },
    readOnly ? '' : ' Through zerto-rewind: policy-checked, checkpointed when it changes a protected VM, audited.', secrets());

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
    title: text.title,
    description: text.description,
    category: readOnly ? 'read' : 'mutate',
    toolset: 'downstream',
    idempotent: tool.annotations?.idempotentHint ?? false,
    openWorld: tool.annotations?.openWorldHint ?? true,
    input,
    output: z.looseObject({}),
    listing: {
      inputSchema: advertisedInput(text.inputSchema, gatewayArgs),
      ...(text.outputSchema ? { outputSchema: text.outputSchema } : {}),
      // The display name is the tool's title (as for this server's own tools), never repeated here.
      annotations: {
        readOnlyHint: readOnly, destructiveHint: destructive,
        idempotentHint: tool.annotations?.idempotentHint ?? false, openWorldHint: tool.annotations?.openWorldHint ?? true,
      },
    },
    async resolve(args, ctx) {
      if (readOnly) await refuseIfCatalogued(x, ctx, opts);
      return resolveCall(x, args, ctx, readLocations);
    },
    async execute(args, _resolution, ctx) {
      const forwarded = stripGatewayArgs(args, gatewayArgs);
      const result = await forwardToDownstream(x, forwarded, { signal: ctx.signal, secrets, progress: ctx.progress });
      return { downstream: server, downstream_tool: tool.name, is_error: result.isError === true, result };
    },
    // Two-phase under the policy the call is decided with (it hot-reloads): downstream_two_phase
    // makes a destructiveHint tool a proposal first; confirm_action forwards it.
    twoPhase: destructive ? (rules) => rules.downstream_two_phase : false,
    async dryRun(args) {
      return { would: `forward '${tool.name}' to downstream server '${server}' with ${JSON.stringify(stripGatewayArgs(args, gatewayArgs)).slice(0, 300)}` };
    },
    present: (outcome, known, render) => presentDownstreamResult(x, outcome, known, render),
  });
  return declaration as AnyTool;
}

/**
 * A validator for the downstream's input schema, its own (no `$id` is shared between tools), with
 * patterns in linear time. A schema it cannot compile fails closed: every call is refused as
 * invalid input, saying why, rather than forwarded unchecked.
 */
function compileInputSchema(name: string, schema: Record<string, unknown>): SchemaCheck {
  try {
    return compileSchemaCheck(schema);
  } catch (err) {
    const why = `the downstream's input schema for '${name}' cannot be compiled (${(err as Error).message}), so no call to it is forwarded`;
    return () => ({ valid: false, errorMessage: why });
  }
}

/**
 * The catalog wins over hints: a tool its server calls read-only but the catalog lists (added
 * since it was declared, perhaps by another instance) is re-declared as a change, and this call is
 * refused unforwarded, to be made again through the guard. An unreachable catalog leaves the
 * declaration as it is (built from the catalog as last read).
 */
async function refuseIfCatalogued(x: ExportedTool, ctx: CallContext, opts: DeclarationOptions): Promise<void> {
  const entry = await ctx.services.ext.catalog?.find(x.name).catch(() => undefined);
  if (!entry) return;
  opts.onCatalogued?.(x.name);
  throw new AppError('invalid_state', `${JSON.stringify(x.name)} is in the mutating-tool catalog (vm_arg '${entry.vm_arg}'), so it is a change whatever its server's readOnlyHint says; it is now declared as one. Nothing was forwarded.`, {
    retryable: true, hint: ownText('Call it again: it now runs through the checkpoint guard.'),
  });
}

/** What the call touches: the bound or named VM(s), their vSphere target, and what guards it. */
async function resolveCall(x: ExportedTool, args: Record<string, unknown>, ctx: CallContext, readLocations: LocationCache): Promise<Resolution> {
  const readOnly = x.readOnly;
  const bound = await boundVms(x, args, ctx, readOnly);
  const located = await Promise.all(bound.vms.map((vm) => (readOnly ? locateForRead(ctx, vm.name, x.name, readLocations) : locate(ctx, vm.name, x.name))));
  const homes = [...new Set(located.map((l) => l.target).filter((t): t is string => t !== undefined))];
  if (homes.length > 1) {
    throw new AppError('invalid_input', `${JSON.stringify(x.name)} would change VMs on ${homes.length} vSphere targets (${homes.join(', ')}); a change has exactly one target.`, {
      hint: ownText('Make one call per target.'),
    });
  }
  const target = (homes[0] ? configuredTarget(ctx.services, homes[0]) : undefined) ?? serverTarget(x.server);
  const guestPaths = readOnly ? [] : guestPathsOf(x, args, located);
  const affected: AffectedObject[] = [
    ...located.map((l) => ({ type: 'vm', name: l.name, ...(l.moid ? { moid: l.moid } : {}), ...(l.target ? { target: l.target } : {}) })),
    { type: 'downstream_tool', name: x.tool.name, server: x.server },
  ];
  // The guard step pins for the affected VMs (a read skips it); policy's downstream_unlisted
  // decides a change nothing ties to a VM. Both are the pipeline's, not this adapter's.
  return {
    targets: [target],
    affected,
    // Names are JSON-quoted: a VM name from the arguments stays one name in the sentence a human approves.
    summary: `${x.tool.name} on downstream server ${quoted(x.server)}${located.length ? ` (changes VM ${located.map((l) => quoted(l.name)).join(', ')})` : ''}`,
    downstream: { server: x.server, unguarded: bound.why === 'unlisted' },
    ...(guestPaths.length ? { guestPaths } : {}),
  };
}

/**
 * The guest paths a change's declared path arguments name (config undo_paths), on the one VM it
 * changes. A change tied to no VM, or to several, records none: no checkpoint of one VM holds them.
 */
function guestPathsOf(x: ExportedTool, args: Record<string, unknown>, located: Located[]) {
  const vm = located.length === 1 ? located[0]! : undefined;
  const touched = touchedGuestPaths(x.server, x.connection.config.guestFiles, x.tool.name, args,
    { target: vm?.target ?? '', name: vm?.name ?? '', ...(vm?.moid ? { moid: vm.moid } : {}) });
  return vm ? touched : [];
}

async function boundVms(x: ExportedTool, args: Record<string, unknown>, ctx: CallContext, readOnly: boolean): Promise<Bound> {
  // A read never asks the catalog: with the shared catalog unreachable, reads keep working and
  // only changes fail closed (the lookup rejects as `unavailable`).
  const entry = readOnly ? undefined : await ctx.services.ext.catalog?.find(x.name);
  if (entry) {
    const names = vmsFromArgs(args, entry.vm_arg);
    if (names.length === 0) {
      throw new AppError('invalid_input', `${JSON.stringify(x.name)} is catalogued with vm_arg '${entry.vm_arg}', but the arguments name no VM there, so the guard cannot tell which VM it changes.`, {
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
      hint: ownText('Name the VM exactly (its vSphere name), or bind the downstream server with an unambiguous vm.'),
      details: { candidates: hits.map((h) => ({ target: h.target, moid: h.moid, name: h.name })) },
    });
  }
  const hit = hits[0];
  return hit ? { name: hit.name, target: hit.target, moid: hit.moid } : { name };
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

function advertisedInput(schema: Record<string, unknown>, gatewayArgs: string[]): Record<string, unknown> {
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
      'Lists the downstream MCP servers this server runs: state, tool count, last error, bound VM, ' +
      'tools left out, and tools changed since first seen (held until the operator accepts). ' +
      'Their tools are <server>__<tool>, run through policy, guard and audit.',
    category: 'read',
    toolset: 'downstream',
    idempotent: true,
    input: z.object({}),
    output: z.object({
      servers: z.array(z.object({
        name: z.string(), state: z.enum(['starting', 'ready', 'restarting', 'stopped']), transport: z.enum(['stdio', 'http']),
        tool_count: z.number(), last_error: z.string().nullable(), restarts: z.number(), vm: z.string().nullable(),
        env_keys: z.array(z.string()).describe('Names of the variables passed to it; values are never shown.'),
        listing_error: z.string().nullable().describe('Why its last tools/list was refused (too many pages, tools, bytes or too slow); its previous tools are kept.'),
        refused_tools: z.array(z.string()),
        changed_tools: z.array(z.object({ tool: z.string(), changed: z.array(z.string()), seen_at: z.string() }))
          .describe('Tools listed differently from their pinned (first-seen) definition: the pinned one stays in force until the operator runs `zerto-rewind-mcp downstream accept`.'),
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
export function downstreamDeclarations(manager: DownstreamManager, opts: DeclarationOptions = {}): AnyTool[] {
  return manager.tools().map((x) => downstreamDeclaration(x, opts));
}
