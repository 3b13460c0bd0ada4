// Test-only tools declared through the same API as the real ones, so the pipeline, two-phase
// flow and gating are tested independently of any vendor. They act on an in-memory "inventory"
// that the test inspects: that record is the simulator's state for these tests. Their toolset is
// `lab`, whose surface needs no vendor configured (the harness serves it: TOOLSETS=all).
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/tools/define.js';
import { AppError } from '../../src/core/errors.js';
import { OverrideArg, TargetArg, VmArg } from '../../src/tools/args.js';

export interface FakeInventory {
  vms: Map<string, { name: string; moid: string; folder: string; deleted: boolean; cpus: number }>;
  executions: string[];
}

export function fakeInventory(): FakeInventory {
  const vms = new Map<string, { name: string; moid: string; folder: string; deleted: boolean; cpus: number }>();
  for (const [moid, name, folder] of [['vm-1', 'web-1', 'DC/vm/web'], ['vm-2', 'db-1', 'DC/vm/db'], ['vm-3', 'web-2', 'DC/vm/web']] as const) {
    vms.set(moid, { name, moid, folder, deleted: false, cpus: 2 });
  }
  return { vms, executions: [] };
}

function find(inv: FakeInventory, vm: string) {
  const hits = [...inv.vms.values()].filter((v) => !v.deleted && (v.moid === vm || v.name === vm));
  if (hits.length === 0) throw new AppError('not_found', `No VM '${vm}'.`);
  return hits[0]!;
}

export function testTools(inv: FakeInventory): AnyTool[] {
  const resolve = async (args: { target: string; vm: string }, ctx: { services: { targets: Array<{ name: string; host: string; tags: string[]; dryRun?: boolean }> } }) => {
    if (args.target === 'all') return { targets: ctx.services.targets.map((t) => ({ ...t })), targetIsAll: true, affected: [] };
    const t = ctx.services.targets.find((x) => x.name === args.target);
    if (!t) throw new AppError('not_found', `Unknown target '${args.target}'.`);
    const vm = find(inv, args.vm);
    return {
      targets: [{ name: t.name, host: t.host, tags: t.tags, ...(t.dryRun !== undefined ? { dryRun: t.dryRun } : {}) }],
      affected: [{ type: 'vm', name: vm.name, moid: vm.moid, target: t.name, folder: vm.folder }],
      summary: `test change of VM '${vm.name}' (${vm.moid}) on target '${t.name}'`,
    };
  };
  const testDelete = defineTool({
    name: 'test_delete_vm',
    title: 'Test delete',
    description: 'Test-only destructive tool.',
    category: 'destructive',
    toolset: 'lab',
    idempotent: false,
    input: z.object({ target: TargetArg, vm: VmArg, override: OverrideArg }),
    output: z.object({ deleted_vm: z.string(), moid: z.string() }),
    resolve,
    async execute(_args, resolution) {
      const moid = resolution.affected[0]!.moid!;
      const vm = inv.vms.get(moid)!;
      // Yield so concurrent confirms overlap for real.
      await new Promise((r) => setTimeout(r, 5));
      vm.deleted = true;
      inv.executions.push(`delete:${moid}`);
      return { deleted_vm: vm.name, moid };
    },
  });
  const testSetCpu = defineTool({
    name: 'test_set_cpu',
    title: 'Test reconfigure',
    description: 'Test-only mutating tool.',
    category: 'mutate',
    toolset: 'lab',
    idempotent: true,
    input: z.object({ target: TargetArg, vm: VmArg, cpus: z.number().int().min(1).max(64), override: OverrideArg }),
    output: z.object({ vm: z.string(), cpus: z.number() }),
    resolve,
    async execute(args, resolution) {
      const vm = inv.vms.get(resolution.affected[0]!.moid!)!;
      vm.cpus = args.cpus;
      inv.executions.push(`cpu:${vm.moid}:${args.cpus}`);
      return { vm: vm.name, cpus: vm.cpus };
    },
  });
  const testRead = defineTool({
    name: 'test_read',
    title: 'Test read',
    description: 'Test-only read tool.',
    category: 'read',
    toolset: 'lab',
    idempotent: true,
    input: z.object({}),
    output: z.object({ count: z.number() }),
    async resolve(_a, ctx) {
      return { targets: ctx.services.targets.map((t) => ({ name: t.name, host: t.host, tags: t.tags })), affected: [] };
    },
    async execute() {
      return { count: [...inv.vms.values()].filter((v) => !v.deleted).length };
    },
  });
  return [testRead, testSetCpu, testDelete];
}
