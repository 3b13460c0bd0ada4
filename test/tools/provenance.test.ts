// Provenance that cannot be forged: every audit line says which door a call
// came through (`via`), an MCP client's self-chosen name is namespaced and reduced to a small
// alphabet, and checkpoint tags carry that same identity. A client that names itself like a
// dashboard approver gets neither the same identity nor a confusable one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLabHarness, type LabHarness } from '../support/lab-harness.js';
import { dashboardPorts } from '../../src/app/adapters/dashboard-ports.js';
import { errorOf } from '../support/harness.js';

const FORGER = 'web-ui@127.0.0.1 (alice)';
const POLICY = `
defaults: {checkpoint: best_effort, max_calls_per_minute: 10000, approval: single}
targets:
  lab-vc1: {destructive: allow}
`;

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ policyYaml: POLICY, taskMs: 20, zvmTaskMs: 50, clientName: FORGER, env: { ENABLE_DESTRUCTIVE: 'true' } });
});
afterAll(async () => h?.close());

/** What a human would not tell apart: case, spaces and punctuation ignored. */
const skeleton = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

describe('provenance', () => {
  it('a client named like a web approver is audited as mcp:..., via mcp, and its tag says the same', async () => {
    const r = await h.call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'x = 1\n', change_id: 'prov-1' });
    expect(r.isError, r.text).toBe(false);
    const tag = String((r.data.checkpoint as { tag: string }).tag);
    const lines = h.auditLines().filter((l) => l.tool === 'lab_write_guest_file');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l.via).toBe('mcp');
      expect(String(l.identity)).toMatch(/^mcp:[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/);
    }
    const identity = String(lines[0]!.identity);
    expect(identity).not.toContain('web-ui@');
    expect(tag).toMatch(new RegExp(`^ai-[a-z2-7]{10} \\S+ ${identity.split('/')[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\| `));
    expect(tag).not.toContain('web-ui@');
  });

  it('a dashboard approval is via web; the forger\'s identity is neither equal nor confusable with it', async () => {
    const p = await h.call('delete_vm', { target: 'lab-vc1', vm: 'vm-105' });
    expect(p.isError, p.text).toBe(false);
    const ports = dashboardPorts(h.runtime.built, undefined, h.auditPath);
    const out = await ports.cancel(String(p.data.proposal_id), FORGER);
    expect(out.state).toBe('cancelled');
    const lines = h.auditLines().filter((l) => l.tool === 'delete_vm' && l.proposal_id === p.data.proposal_id);
    const web = lines.find((l) => l.phase === 'cancelled')!;
    const mcp = lines.find((l) => l.phase === 'proposed')!;
    expect(web).toMatchObject({ via: 'web', identity: FORGER });
    expect(mcp.via).toBe('mcp');
    expect(mcp.identity).not.toBe(web.identity);
    expect(skeleton(String(mcp.identity)).startsWith(skeleton(String(web.identity)))).toBe(false);
    expect(String(mcp.identity).startsWith('mcp:')).toBe(true);
  });

  it('a caller-given agent label is added to the identity in the tag, never replaces it', async () => {
    ok(await h.call('zerto_add_mutating_tool', { tool: 'ssh/exec', vm_arg: 'host' }));
    const r = await h.call('zerto_guard_before_mutate', { tool: 'ssh/exec', args: { host: 'app-01' }, agent: FORGER, change_id: 'prov-2' });
    expect(r.isError, r.text).toBe(false);
    const tag = String((r.data.tags as string[])[0]);
    expect(tag).toMatch(/^ai-[a-z2-7]{10} \S+ mcp:[A-Za-z0-9._-]+\+web-ui_127\.0\.0\.1_alice_ \| /);
  });
});

function ok(r: { isError: boolean; text: string }) {
  if (r.isError) throw new Error(errorOf(r as never).message);
  return r;
}
