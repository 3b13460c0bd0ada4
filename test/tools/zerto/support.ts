// Shared by the Zerto tool tests: lab facts, and small readers over the harness's call log,
// audit log and the simulated ZVM's journal.
import { expect } from 'vitest';
import { labVmIdentifier, LAB_VPGS } from '../../../src/lab/topology.js';
import type { LabHarness } from '../../support/lab-harness.js';
import { errorOf, type CallResult } from '../../support/harness.js';

export { errorOf };

export const APP01 = labVmIdentifier('lab-vc1', 'vm-101');
export const WEB01 = labVmIdentifier('lab-vc1', 'vm-102');
export const WEB02 = labVmIdentifier('lab-vc1', 'vm-103');
export const WIN01 = labVmIdentifier('lab-vc1', 'vm-104');
export const ORIGINAL_CONF = 'listen_port = 8080\nmax_connections = 200\nlog_level = info\n';
export const ORIGINAL_INI = '[server]\nport=8443\nthreads=16\n';

export function vpgId(name: string): string {
  return LAB_VPGS.find((v) => v.name === name)!.id;
}

export const POST_CHECKPOINT = 'POST /v1/vpgs/:id/checkpoints';

/** The result's data, failing the test with the error text when the call failed. */
export function ok(r: CallResult): Record<string, any> {
  if (r.isError) throw new Error(`expected success, got ${r.text}`);
  return r.data as Record<string, any>;
}

/** The call log's current position: calls after it are the ones a step caused. */
export function mark(h: LabHarness): number {
  return h.lab.callLog.calls.at(-1)?.seq ?? 0;
}

export function callsSince(h: LabHarness, since: number, source: string, method: string | RegExp) {
  return h.lab.callLog.find(source, method).filter((c) => c.seq > since);
}

/** Tagged checkpoints carrying `tag` in the simulated ZVM's journal (listed or not). */
export function journalTagged(h: LabHarness, vpg: string, tag: string, site = 'lab-zvm') {
  return (h.lab.zvms.get(site)!.state.checkpoints.get(vpgId(vpg)) ?? []).filter((c) => c.tag === tag);
}

export function allTagged(h: LabHarness, site = 'lab-zvm') {
  return [...h.lab.zvms.get(site)!.state.checkpoints.values()].flat().filter((c) => c.tag !== null);
}

export function guestText(h: LabHarness, vm: string, path: string): string | undefined {
  return h.lab.guests.read(vm, path)?.toString('utf8');
}

export function auditFor(h: LabHarness, id: string) {
  return h.auditLines().filter((l) => l.id === id);
}

export async function waitFor(cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `agent`: the caller's label (the tag records `mcp:lab-test+<label>`) or a whole `mcp:` identity. */
export function expectTag(tag: unknown, parts: { agent?: string; action?: string; vm: string; change?: string }): void {
  expect(typeof tag).toBe('string');
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const re = new RegExp(`^ai-[a-z2-7]{10} \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ ${esc(parts.agent === undefined ? 'mcp:lab-test' : parts.agent.startsWith('mcp:') ? parts.agent : `mcp:lab-test+${parts.agent}`)} \\| ${parts.action ? esc(parts.action) : '.+'} (?:\\| args=[0-9a-f]+ )?\\| vm=${esc(parts.vm)} \\| change=${parts.change ? esc(parts.change) : '[^ ]+'}$`);
  expect(tag).toMatch(re);
}
