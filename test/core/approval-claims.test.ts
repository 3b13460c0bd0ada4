// What a token does and does not say: a group rule and a token without a groups claim deny (never
// "no groups"); a client-credentials token is a service, not a person; and which channel satisfies
// which approval level.
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/core/policy-engine.js';
import { parsePolicy } from '../../src/config/policy-file.js';
import { principalFromClaims } from '../../src/core/principal.js';
import { levelsFor } from '../../src/core/approval.js';

const policy = parsePolicy(`
defaults: { destructive: allow }
rules:
  - name: interns-read-only
    match: { groups: [interns], tools: [destructive] }
    action: deny
`, 'policy.yaml').policy!;

const revert = (caller?: { subject: string; groups: string[] | undefined }) => decide(policy, {
  tool: 'revert_snapshot', category: 'destructive', target: { name: 'vc1', tags: [] }, objects: [], override: false,
  ...(caller ? { caller } : {}),
});

describe('a rule that needs a claim the token does not carry', () => {
  it('denies when the token has no groups claim, names the rule and what to fix', () => {
    const d = revert({ subject: 'ivan', groups: undefined });
    expect(d.allowed).toBe(false);
    expect(d.rule).toBe('interns-read-only');
    expect(d.reason).toMatch(/carries no groups claim/);
    expect(d.hint).toMatch(/groups claim into the access token/);
  });

  it('reads an empty groups claim as "in no group", and a named group as itself', () => {
    expect(revert({ subject: 'olga', groups: [] }).allowed).toBe(true);
    expect(revert({ subject: 'ivan', groups: ['interns'] }).allowed).toBe(false);
  });

  it('does not deny for a rule whose other fields do not match the call', () => {
    const read = decide(policy, { tool: 'list_vms', category: 'read', target: { name: 'vc1', tags: [] }, objects: [], override: false, caller: { subject: 'x', groups: undefined } });
    expect(read.allowed).toBe(true);
  });

  it('the built-in approval is human', () => {
    expect(revert({ subject: 'olga', groups: [] }).approval).toBe('human');
  });
});

describe('who a token names', () => {
  it('a client-credentials token is a service, whichever IdP convention marks it', () => {
    expect(principalFromClaims({ sub: 'backup-bot', client_id: 'backup-bot', scope: 'vsphere:read' })).toMatchObject({ identity: 'service:backup-bot', kind: 'service', scopes: ['vsphere:read'] });
    expect(principalFromClaims({ sub: '5f1c', azp: 'app-1', idtyp: 'app' })).toMatchObject({ kind: 'service' });
    expect(principalFromClaims({ sub: '0a9e', azp: 'ci', preferred_username: 'service-account-ci' })).toMatchObject({ kind: 'service' });
    expect(principalFromClaims({ sub: 'alice', azp: 'claude-code', groups: ['/ops'] })).toMatchObject({ identity: 'user:alice', kind: 'user', groups: ['ops'] });
    expect(principalFromClaims({ sub: 'alice' })!.groups).toBeUndefined();
  });
});

describe('which channel satisfies which level', () => {
  it('the model (confirm_action) only single; the client question human; the dashboard the rest', () => {
    expect(levelsFor({ identity: 'user:bob', channel: 'mcp' })).toEqual(['single']);
    expect(levelsFor({ identity: 'service:approver', channel: 'mcp', namedService: true })).toEqual(['single', 'second_person']);
    expect(levelsFor({ identity: 'mcp:claude/1', channel: 'elicitation' })).toEqual(['single', 'human']);
    expect(levelsFor({ identity: 'web-ui@127.0.0.1', channel: 'web' })).toEqual(['single', 'human', 'dashboard']);
    expect(levelsFor({ identity: 'user:bob', channel: 'web' })).toEqual(['single', 'human', 'dashboard', 'second_person']);
  });
});
