// The adapter alone: how a downstream tool's JSON schema and annotations become a declaration
// (validation, category, gateway arguments, two-phase from the live policy), without starting it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { downstreamDeclaration } from '../../../src/tools/gateway/downstream-tools.js';
import { DownstreamConnection } from '../../../src/downstream/connection.js';
import { PolicyFileStore } from '../../../src/config/policy-store.js';
import { isTwoPhase, isTwoPhaseUnder } from '../../../src/tools/define.js';
import type { PolicyFile } from '../../../src/config/policy-file.js';
import { listed } from '../../../src/mcp/listing/registry.js';
import { silentLogger, tempDir } from '../../support/harness.js';

const connection = new DownstreamConnection({ name: 'srv', command: 'unused', args: [], env: {}, startupTimeoutMs: 1_000, callTimeoutMs: 1_000, callTotalTimeoutMs: 4_000, maxTools: 300 }, { logger: silentLogger });

function declare(tool: Tool) {
  return { decl: downstreamDeclaration({ name: `srv__${tool.name}`, server: 'srv', tool, readOnly: tool.annotations?.readOnlyHint === true, connection }) };
}

function policyFrom(yaml: string): PolicyFile {
  const path = join(tempDir('zr-decl-'), 'policy.yaml');
  writeFileSync(path, yaml);
  const state = new PolicyFileStore(path, true).current();
  if (!state.ok) throw new Error(state.error);
  return state.policy;
}

const WRITE: Tool = {
  name: 'write', inputSchema: { type: 'object', properties: { path: { type: 'string', minLength: 1 }, mode: { type: 'string', enum: ['a', 'w'] } }, required: ['path'], additionalProperties: false },
  annotations: { readOnlyHint: false, destructiveHint: true },
};

describe('downstream declaration', () => {
  it('validates against the downstream schema as written, one issue per field, with override/change_id accepted but not part of it', () => {
    const { decl } = declare(WRITE);
    expect(decl.input.safeParse({ path: '/x', mode: 'w', override: true, change_id: 'c-1' }).success).toBe(true);
    const bad = decl.input.safeParse({ mode: 'x', extra: 1, change_id: 'has space' });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i: { path: PropertyKey[] }) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['', 'mode', 'change_id']));
    expect(bad.error!.issues.map((i: { message: string }) => i.message).join(' ')).toContain("required property 'path'");
  });

  it('advertises the downstream schema plus the gateway arguments, no output schema for a change, and its annotations', () => {
    const { decl } = declare(WRITE);
    const l = listed(decl);
    expect(Object.keys(l.inputSchema.properties as object)).toEqual(['path', 'mode', 'override', 'change_id']);
    expect(l.inputSchema.required).toEqual(['path']);
    expect(l.outputSchema).toBeUndefined();
    expect(l.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(decl.category).toBe('mutate');
  });

  it('a tool with its own override argument keeps it (forwarded), and the gateway adds none', () => {
    const { decl } = declare({ name: 'w2', inputSchema: { type: 'object', properties: { override: { type: 'string' } } } });
    expect(Object.keys(listed(decl).inputSchema.properties as object)).toEqual(['override', 'change_id']);
    expect(decl.input.safeParse({ override: 'yes' }).success).toBe(true);
  });

  it('readOnlyHint makes a read that keeps its output schema; MCP defaults make an unannotated tool destructive', () => {
    const { decl: read } = declare({ name: 'r', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } });
    expect(read.category).toBe('read');
    expect(listed(read).outputSchema).toEqual({ type: 'object', properties: {} });
    const { decl: bare } = declare({ name: 'b', inputSchema: { type: 'object' } });
    expect(listed(bare).annotations.destructiveHint).toBe(true);
  });

  it('two-phase follows downstream_two_phase in the policy the call is decided under, for destructive tools only', () => {
    const { decl } = declare(WRITE);
    // A copy of the declaration keeps the rule (it is a function of the policy, not a frozen value).
    const copy = { ...decl };
    expect(isTwoPhase(copy)).toBe(true); // may be two-phase: confirm_action is registered
    expect(isTwoPhaseUnder(copy, policyFrom(''))).toBe(false);
    expect(isTwoPhaseUnder(copy, policyFrom('downstream_two_phase: true\n'))).toBe(true);
    const { decl: additive } = declare({ ...WRITE, name: 'add', annotations: { readOnlyHint: false, destructiveHint: false } });
    expect(isTwoPhase(additive)).toBe(false);
    expect(isTwoPhaseUnder(additive, policyFrom('downstream_two_phase: true\n'))).toBe(false);
  });

  it('a schema that cannot be compiled refuses every call instead of forwarding it unchecked', () => {
    const { decl } = declare({ name: 'broken', inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/missing' } } } });
    const r = decl.input.safeParse({ a: 1 });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toContain('cannot be compiled');
  });
});
