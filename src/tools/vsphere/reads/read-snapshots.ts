// list_snapshots: the snapshot tree of one VM, as a tree (children nested under their parent) with
// the current snapshot marked, because revert and delete act on a node and everything under it.
import { z } from 'zod';
import type { SnapshotNode as ClientNode } from '../../../vsphere/snapshot-tree.js';
import { defineTool } from '../../define.js';
import { TargetsArg, VmArg } from '../../args.js';
import { fanOutSchema } from '../support/common.js';
import { detailFanOut, nstr, readResolution } from '../support/read-common.js';

export interface SnapshotTreeNode {
  name: string;
  moid: string;
  description: string;
  created_at: string | null;
  state: string | null;
  quiesced: boolean;
  current: boolean;
  children: SnapshotTreeNode[];
}

export const SnapshotTreeNodeSchema: z.ZodType<SnapshotTreeNode> = z.object({
  name: z.string(),
  moid: z.string().describe('What delete_snapshot / revert_snapshot take (e.g. snapshot-12).'),
  description: z.string(),
  created_at: nstr,
  state: nstr.describe('Power state captured: poweredOn means memory was included.'),
  quiesced: z.boolean(),
  current: z.boolean().describe('The VM runs from this snapshot (its "You are here" point).'),
  get children() {
    return z.array(SnapshotTreeNodeSchema);
  },
});

export function snapshotNodes(nodes: ClientNode[], current: string | null): SnapshotTreeNode[] {
  return nodes.map((n) => ({
    name: n.name,
    moid: n.moid,
    description: n.description,
    created_at: n.created_at,
    state: n.state,
    quiesced: n.quiesced,
    current: n.moid === current,
    children: snapshotNodes(n.children, current),
  }));
}

export function countNodes(nodes: SnapshotTreeNode[]): number {
  return nodes.reduce((n, s) => n + 1 + countNodes(s.children), 0);
}

export const listSnapshots = defineTool({
  name: 'list_snapshots',
  title: 'List VM snapshots',
  description:
    "The snapshot tree of one VM: each node's name, moid, description, creation time, power state, quiesced and current flags. Pass a moid to delete_snapshot or revert_snapshot.",
  category: 'read',
  toolset: 'vsphere_read',
  idempotent: true,
  input: z.object({ target: TargetsArg, vm: VmArg }),
  output: fanOutSchema(z.object({
    vm: z.object({ name: z.string(), moid: z.string() }),
    count: z.number().int(),
    current: z.object({ name: z.string(), moid: z.string() }).nullable(),
    tree: z.array(SnapshotTreeNodeSchema),
  })),
  async resolve(args, ctx) {
    return readResolution(ctx, args.target, { type: 'vm', name: args.vm });
  },
  async execute(args, _resolution, ctx) {
    return detailFanOut(ctx, 'vm', args.vm, async (client, moid, call) => {
      const list = await client.listSnapshots(moid, call);
      const tree = snapshotNodes(list.tree, list.current);
      const cur = list.flat.find((s) => s.moid === list.current);
      return {
        vm: list.vm,
        count: countNodes(tree),
        current: cur ? { name: cur.name, moid: cur.moid } : null,
        tree,
      };
    });
  },
});
