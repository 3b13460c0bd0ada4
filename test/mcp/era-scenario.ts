// What every client of either era must be able to do against the lab, the same on stdio and on
// HTTP: list the tools, call a read, and make a two-phase change (the proposal, then
// confirm_action), with a trace id the audit line records.
import { expect } from 'vitest';
import type { EraClient } from '../support/era-clients.js';

const ok = (r: { isError: boolean; text: string; data: Record<string, unknown> }): Record<string, unknown> => {
  if (r.isError) throw new Error(`expected success, got ${r.text}`);
  return r.data;
};

/** A W3C trace context as a 2026-era client sends it in `_meta`; the trace id names the client kind. */
export function traceparentFor(n: number): string {
  return `00-${n.toString(16).padStart(32, '0')}-00f067aa0ba902b7-01`;
}

export async function listReadAndChange(c: EraClient, snapshot: string, traceparent: string): Promise<void> {
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['list_vms', 'delete_snapshot', 'confirm_action']));

  const vms = ok(await c.call('list_vms', { target: 'lab-vc1' }));
  expect(JSON.stringify(vms)).toContain('web-01');

  ok(await c.call('create_snapshot', { target: 'lab-vc1', vm: 'web-01', name: snapshot }));
  const proposal = ok(await c.call('delete_snapshot', { target: 'lab-vc1', vm: 'web-01', snapshot }, { traceparent }));
  expect(proposal).toMatchObject({ state: 'pending', tool: 'delete_snapshot' });
  const done = ok(await c.call('confirm_action', { token: proposal.token as string }));
  expect(done).toMatchObject({ state: 'executed', tool: 'delete_snapshot' });
}
