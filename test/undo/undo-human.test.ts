// undo_change under approval: human (the built-in default), through a real MCP client that can be
// asked: the person's question lists the undo's items; declined, nothing in the guest changes and
// no FLR session is opened; accepted, the file is put back.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { ok, ORIGINAL_CONF } from '../tools/zerto/support.js';

const POLICY = 'defaults: { read: allow, mutate: allow, destructive: deny, checkpoint: required, max_calls_per_minute: 10000 }\n';

let h: LabHarness;
let root: string;
const asked: string[] = [];
let answer: ElicitResult['action'] = 'decline';
beforeAll(async () => {
  h = await startLabHarness({
    zvmTaskMs: 50, taskMs: 20, policyYaml: POLICY, checkpointTimeoutMs: 5_000, guestfs: true, downstreamBackoffMs: 50,
    elicitation: { capabilities: { form: {} }, answer: async (req) => { asked.push(req.message); return { action: answer, content: {} }; } },
  });
  root = h.lab.guestFolder!.root;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const conf = () => readFileSync(join(root, 'etc/app.conf'), 'utf8');
const flrMounts = () => h.lab.callLog.find('zvm:lab-zvm', 'POST /v1/flrs').length;

describe('undo_change, approval: human', () => {
  it('declined: the question listed the item, nothing in the guest changed; accepted: the file is back', async () => {
    ok(await h.call('guestfs__write_file', { path: join(root, 'etc/app.conf'), content: 'listen_port = 0\n' }));
    const changeId = h.auditLines().filter((l) => l.tool === 'guestfs__write_file' && l.phase === 'executing').at(-1)!.id as string;
    const mountsBefore = flrMounts();

    const declined = await h.call('undo_change', { change_id: changeId });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Approve undo_change on target "lab-vc1"/);
    expect(asked[0]).toContain('undo_item "put \\"/etc/app.conf\\" of VM \\"app-01\\" back as it was at the pinned checkpoint');
    expect(asked[0]).toMatch(/\nUndo: undo_change\(change_id\): undo_change on this undo puts back/);
    expect(declined.isError ? 'error' : (declined.data as Record<string, unknown>).state).not.toBe('executed');
    expect(conf()).toBe('listen_port = 0\n');
    expect(flrMounts()).toBe(mountsBefore);
    expect(h.auditLines().some((l) => l.tool === 'undo_change' && l.phase === 'executing')).toBe(false);

    answer = 'accept';
    const accepted = ok(await h.call('undo_change', { change_id: changeId }));
    expect(accepted).toMatchObject({ state: 'executed', approval: 'human' });
    expect(conf()).toBe(ORIGINAL_CONF);
    // The counter counts: the approved undo mounted the checkpoint.
    expect(flrMounts()).toBeGreaterThan(mountsBefore);
  }, 120_000);
});
