// Power tools: on, off (guest shutdown first, hard power off as the fallback), suspend, reset.
// Each binds the VM's moid at resolution and acts on that moid only. A VM already in the wanted
// state is reported as unchanged instead of failing with vSphere's InvalidPowerState.
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import { sleep } from '../../../core/sleep.js';
import type { CallOptions, VsphereClient } from '../../../vsphere/client.js';
import { defineTool, type CallContext } from '../../define.js';
import { ChangeCommonArgs, TargetArg, VmArg, WouldField } from '../../args.js';
import { resolveChangeVm, vmLabel, vmResolution, type ChangeArgs, type VmChange } from '../support/change-support.js';
import { onTarget, phaseWait } from '../support/task-runner.js';
import { quoted } from '../../../mcp/output/quote.js';
import { powerUndo, resetUndo } from '../support/undo-rules.js';
import { ownText } from '../../../core/own-text.js';

const PowerInput = z.object({ target: TargetArg, vm: VmArg, ...ChangeCommonArgs });

const PowerOutput = z.object({
  target: z.string(),
  vm: z.string(),
  moid: z.string(),
  changed: z.boolean().describe('False when the VM was already in the requested state (nothing was sent to vSphere).'),
  power_state: z.string().nullable().describe('Power state after the call.'),
  task: z.string().optional().describe('vSphere task moid that did the work.'),
  ...WouldField,
});

async function resolvePower(args: ChangeArgs, ctx: CallContext, verb: string): Promise<VmChange> {
  const vm = await resolveChangeVm(ctx, args);
  const { details, target } = vm;
  return vmResolution(vm, `${verb} ${vmLabel(details.name, details.moid)} on target ${quoted(target.name)} (currently ${details.power_state ?? 'unknown'})`);
}

interface SimplePower {
  name: string;
  title: string;
  description: string;
  verb: string;
  idempotent: boolean;
  /** States in which the call is a no-op. */
  alreadyIn: string[];
  run: (client: VsphereClient, moid: string, ctx: CallContext, call: CallOptions) => Promise<{ task: string }>;
  undo: typeof powerUndo;
}

function simplePowerTool(s: SimplePower) {
  return defineTool({
    name: s.name,
    title: s.title,
    description: s.description,
    category: 'mutate',
    toolset: 'vsphere_change',
    singleTarget: true,
    idempotent: s.idempotent,
    undo: s.undo,
    input: PowerInput,
    output: PowerOutput,
    resolve: (args, ctx) => resolvePower(args, ctx, s.verb),
    async execute(_args, { vm }, ctx) {
      return onTarget(ctx, vm.target, async (client, call) => {
        const before = await client.powerState(vm.moid, call);
        if (before !== null && s.alreadyIn.includes(before)) {
          return { target: vm.target, vm: vm.name, moid: vm.moid, changed: false, power_state: before };
        }
        const { task } = await s.run(client, vm.moid, ctx, call);
        return { target: vm.target, vm: vm.name, moid: vm.moid, changed: true, power_state: await client.powerState(vm.moid, call), task };
      });
    },
    async dryRun(_args, { vm }) {
      return { would: `${s.verb} ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)} (skipped if it is already ${s.alreadyIn.join(' or ') || 'in that state'})` };
    },
  });
}

export const powerOnVm = simplePowerTool({
  name: 'power_on_vm',
  title: 'Power on a VM',
  description: 'Powers on (or resumes) one VM. Already on: reported unchanged.',
  verb: 'power on',
  idempotent: true,
  alreadyIn: ['poweredOn'],
  undo: powerUndo,
  run: (client, moid, ctx, call) => client.powerOn(moid, phaseWait(ctx, call, 0, 1, 'power on')),
});

export const suspendVm = simplePowerTool({
  name: 'suspend_vm',
  title: 'Suspend a VM',
  description: 'Suspends one powered-on VM (power_on_vm resumes it). Already suspended: reported unchanged.',
  verb: 'suspend',
  idempotent: true,
  alreadyIn: ['suspended'],
  undo: powerUndo,
  run: (client, moid, ctx, call) => client.suspend(moid, phaseWait(ctx, call, 0, 1, 'suspend')),
});

export const resetVm = simplePowerTool({
  name: 'reset_vm',
  title: 'Reset a VM',
  description: 'Hard-resets one powered-on VM (no clean guest shutdown). Prefer a guest reboot when the guest responds.',
  verb: 'reset',
  idempotent: false,
  alreadyIn: [],
  undo: resetUndo,
  run: (client, moid, ctx, call) => client.reset(moid, phaseWait(ctx, call, 0, 1, 'reset')),
});

export const DEFAULT_GUEST_TIMEOUT_SECONDS = 120;
export const MAX_GUEST_TIMEOUT_SECONDS = 300;

const PowerOffOutput = PowerOutput.extend({
  method: z.enum(['guest_shutdown', 'hard_power_off', 'guest_shutdown_then_hard', 'none'])
    .describe('How the VM was stopped: the guest shut down by itself, a hard power off (hard=true or no VMware Tools), or a guest shutdown that did not finish in time followed by a hard power off.'),
  guest_shutdown: z.object({
    outcome: z.enum(['completed', 'timed_out', 'unavailable', 'skipped']),
    waited_seconds: z.number(),
    reason: z.string().optional(),
  }),
  message: z.string(),
});

export const powerOffVm = defineTool({
  name: 'power_off_vm',
  title: 'Power off a VM',
  description:
    `Powers off one VM: guest shutdown first (up to guest_timeout_seconds, default ${DEFAULT_GUEST_TIMEOUT_SECONDS}), then hard power-off if the guest is still up or has no Tools; hard=true skips the guest step. The result says which happened.`,
  category: 'mutate',
  toolset: 'vsphere_change',
  singleTarget: true,
  idempotent: true,
  undo: powerUndo,
  input: z.object({
    target: TargetArg,
    vm: VmArg,
    hard: z.boolean().default(false).describe('Power off at once, without the guest shutdown.'),
    guest_timeout_seconds: z.number().int().min(1).max(MAX_GUEST_TIMEOUT_SECONDS).default(DEFAULT_GUEST_TIMEOUT_SECONDS)
      .describe('Seconds to wait for the guest shutdown before a hard power-off.'),
    ...ChangeCommonArgs,
  }),
  output: PowerOffOutput,
  resolve: (args, ctx) => resolvePower(args, ctx, 'power off'),
  async execute(args, { vm }, ctx) {
    return onTarget(ctx, vm.target, async (client, call) => {
      const base = { target: vm.target, vm: vm.name, moid: vm.moid };
      const before = await client.powerState(vm.moid, call);
      if (before === 'poweredOff') {
        return { ...base, changed: false, power_state: before, method: 'none' as const, guest_shutdown: { outcome: 'skipped' as const, waited_seconds: 0 }, message: `${vmLabel(vm.name, vm.moid)} was already powered off.` };
      }
      if (args.hard || before !== 'poweredOn') {
        const reason = args.hard ? 'hard=true' : `the VM is ${before ?? 'in an unknown state'}, so there is no running guest to ask`;
        const { task } = await client.powerOff(vm.moid, phaseWait(ctx, call, 0, 1, 'power off'));
        return { ...base, changed: true, power_state: await client.powerState(vm.moid, call), task, method: 'hard_power_off' as const, guest_shutdown: { outcome: 'skipped' as const, waited_seconds: 0, reason }, message: `${vmLabel(vm.name, vm.moid)} was powered off hard (${reason}).` };
      }
      const guest = await guestShutdown(client, vm.moid, args.guest_timeout_seconds, ctx, call);
      if (guest.outcome === 'completed') {
        return { ...base, changed: true, power_state: 'poweredOff', method: 'guest_shutdown' as const, guest_shutdown: guest, message: `The guest of ${vmLabel(vm.name, vm.moid)} shut down cleanly after ${guest.waited_seconds}s.` };
      }
      const { task } = await client.powerOff(vm.moid, phaseWait(ctx, call, 1, 2, 'hard power off'));
      const why = guest.outcome === 'timed_out' ? `the guest was still running after ${args.guest_timeout_seconds}s` : `the guest could not be asked to shut down (${guest.reason})`;
      return {
        ...base, changed: true, power_state: await client.powerState(vm.moid, call), task,
        method: guest.outcome === 'timed_out' ? 'guest_shutdown_then_hard' as const : 'hard_power_off' as const,
        guest_shutdown: guest, message: `${vmLabel(vm.name, vm.moid)} was powered off hard because ${why}.`,
      };
    });
  },
  async dryRun(args, { vm }) {
    const how = args.hard ? 'hard (no guest shutdown)' : `with guest shutdown, hard off after ${args.guest_timeout_seconds}s`;
    return { would: `power off ${vmLabel(vm.name, vm.moid)} on target ${quoted(vm.target)} ${how}` };
  },
});

const guestWaitCancelled = () => new AppError('cancelled', ownText('Stopped waiting for the guest shutdown; the VM may still be shutting down.'), { retryable: true });

type GuestResult = { outcome: 'completed' | 'timed_out' | 'unavailable'; waited_seconds: number; reason?: string };

/** Asks the guest to shut down and polls the power state until it is off or the budget is spent. */
async function guestShutdown(client: VsphereClient, moid: string, timeoutSeconds: number, ctx: CallContext, call: CallOptions): Promise<GuestResult> {
  try {
    await client.shutdownGuest(moid, call);
  } catch (err) {
    // Only "the guest cannot take the request" falls back to a hard power off; anything else
    // (unreachable, session, permissions) is a real failure and is reported as such.
    if (err instanceof AppError && (err.code === 'invalid_state' || err.code === 'vim_fault')) {
      return { outcome: 'unavailable', waited_seconds: 0, reason: err.message };
    }
    throw err;
  }
  const now = ctx.services.clock ?? Date.now;
  const started = now();
  const deadline = started + timeoutSeconds * 1000;
  let interval = 200;
  for (;;) {
    const state = await client.powerState(moid, call);
    const waited = Math.round((now() - started) / 100) / 10;
    if (state === 'poweredOff') return { outcome: 'completed', waited_seconds: waited };
    const left = deadline - now();
    if (left <= 0) return { outcome: 'timed_out', waited_seconds: waited };
    ctx.progress(Math.min(49, Math.round((waited / timeoutSeconds) * 50)), 100, `waiting for the guest to shut down (${Math.floor(waited)}s of ${timeoutSeconds}s)`);
    await sleep(Math.min(interval, left), call.signal ?? ctx.signal, guestWaitCancelled);
    interval = Math.min(interval * 2, 2_000);
  }
}
