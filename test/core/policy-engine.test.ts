import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, type PolicyRequest } from '../../src/core/policy-engine.js';
import { PolicyFileSchema, type PolicyFile } from '../../src/config/policy-file.js';
import { fnmatch, fnmatchCounted } from '../../src/core/fnmatch.js';

const policy = (raw: unknown): PolicyFile => PolicyFileSchema.parse(raw);

const req = (over: Partial<PolicyRequest> = {}): PolicyRequest => ({
  tool: 'delete_vm',
  category: 'destructive',
  target: { name: 'dev-vc1', tags: ['env:dev'] },
  objects: [{ type: 'vm', name: 'web-1', moid: 'vm-1', folder: 'DC1/vm/apps/web', resourcePool: 'Cluster/Resources/Prod' }],
  override: false,
  ...over,
});

describe('policy precedence', () => {
  it('defaults ship strict: destructive denied, mutate and read allowed', () => {
    const p = policy({});
    expect(decide(p, req()).allowed).toBe(false);
    expect(decide(p, req()).rule).toBe('defaults');
    expect(decide(p, req({ category: 'mutate', tool: 'power_on_vm' })).allowed).toBe(true);
    expect(decide(p, req({ category: 'read', tool: 'list_vms' })).allowed).toBe(true);
  });

  it('policy defaults override the built-in defaults', () => {
    expect(decide(policy({ defaults: { mutate: 'deny' } }), req({ category: 'mutate' })).allowed).toBe(false);
  });

  it('a target block overrides defaults for that target only', () => {
    const p = policy({ targets: { 'dev-vc1': { destructive: 'allow' } } });
    expect(decide(p, req())).toMatchObject({ allowed: true, rule: 'target:dev-vc1' });
    expect(decide(p, req({ target: { name: 'prod-vc1', tags: [] } }))).toMatchObject({ allowed: false, rule: 'defaults' });
  });

  it('rules beat the target block; the first matching rule with an action wins', () => {
    const p = policy({
      targets: { 'dev-vc1': { destructive: 'allow' } },
      rules: [
        { name: 'only-checkpoint', match: {}, checkpoint: 'required' },
        { name: 'no-web-delete', match: { vm_patterns: ['web-*'] }, action: 'deny' },
        { name: 'allow-all', match: {}, action: 'allow' },
      ],
    });
    expect(decide(p, req())).toMatchObject({ allowed: false, rule: 'no-web-delete', checkpoint: 'required' });
    expect(decide(p, req({ objects: [{ type: 'vm', name: 'db-1' }] }))).toMatchObject({ allowed: true, rule: 'allow-all' });
  });

  it('protected objects are denied even with override and even when a rule allows', () => {
    const p = policy({
      protected: [{ name: 'crown-jewels', moids: ['vm-1'] }],
      rules: [{ name: 'allow-all', match: {}, action: 'allow' }],
    });
    const d = decide(p, req({ override: true }));
    expect(d).toMatchObject({ allowed: false, rule: 'crown-jewels', overrideWouldHelp: false });
    expect(d.reason).toContain('override does not apply');
  });

  it('protected entries apply to destructive by default, to mutate only when listed, never to reads', () => {
    const p = policy({ protected: [{ vm_patterns: ['web-*'] }], rules: [] });
    expect(decide(p, req({ category: 'mutate' })).allowed).toBe(true);
    expect(decide(p, req({ category: 'read' })).allowed).toBe(true);
    const q = policy({ protected: [{ vm_patterns: ['web-*'], categories: ['mutate', 'destructive'], target_names: ['dev-vc1'] }] });
    expect(decide(q, req({ category: 'mutate' })).allowed).toBe(false);
    expect(decide(q, req({ category: 'mutate', target: { name: 'other', tags: [] } })).allowed).toBe(true);
  });

  it("target 'all' on a change is denied; on a read it is decided per target", () => {
    const p = policy({ rules: [{ name: 'allow', match: {}, action: 'allow' }] });
    expect(decide(p, req({ targetIsAll: true, category: 'mutate' }))).toMatchObject({ allowed: false, rule: 'target-all' });
    expect(decide(p, req({ targetIsAll: true, category: 'read' })).allowed).toBe(true);
  });
});

describe('override semantics', () => {
  const p = policy({ rules: [{ name: 'protect-prod', match: { target_tags: ['env:prod'] }, action: 'deny', unless_override: true }] });
  const prod = { name: 'prod-vc1', tags: ['env:prod'] };

  it('without override the rule denies and says override would help', () => {
    const d = decide(p, req({ target: prod, category: 'mutate' }));
    expect(d).toMatchObject({ allowed: false, rule: 'protect-prod', overrideWouldHelp: true });
    expect(d.reason).toContain('override=true');
  });
  it('override=true flips an unless_override deny', () => {
    expect(decide(p, req({ target: prod, category: 'mutate', override: true }))).toMatchObject({ allowed: true, rule: 'protect-prod' });
  });
  it('override does nothing to a rule without unless_override', () => {
    const q = policy({ rules: [{ name: 'hard', match: {}, action: 'deny' }] });
    expect(decide(q, req({ override: true }))).toMatchObject({ allowed: false, overrideWouldHelp: false });
  });
});

describe('match fields (ANDed; absent matches anything)', () => {
  const cases: Array<[string, Record<string, unknown>, Partial<PolicyRequest>, boolean]> = [
    ['target_names hit', { target_names: ['dev-vc1'] }, {}, true],
    ['target_names miss', { target_names: ['prod-vc1'] }, {}, false],
    ['target_tags any-of hit', { target_tags: ['env:prod', 'env:dev'] }, {}, true],
    ['target_tags miss', { target_tags: ['env:prod'] }, {}, false],
    ['tools by category', { tools: ['destructive'] }, {}, true],
    ['tools by name', { tools: ['delete_vm'] }, {}, true],
    ['tools miss', { tools: ['power_on_vm', 'mutate'] }, {}, false],
    ['vm_patterns fnmatch', { vm_patterns: ['web-?'] }, {}, true],
    ['vm_patterns miss', { vm_patterns: ['db-*'] }, {}, false],
    ['vm_patterns with no VM in the call', { vm_patterns: ['*'] }, { objects: [] }, false],
    ['folders by name', { folders: ['apps'] }, {}, true],
    ['folders by path subtree', { folders: ['DC1/vm/apps'] }, {}, true],
    ['folders by exact path', { folders: ['DC1/vm/apps/web'] }, {}, true],
    ['folders path miss', { folders: ['DC1/vm/db'] }, {}, false],
    ['folders name is not a substring match', { folders: ['app'] }, {}, false],
    ['resource_pools by name', { resource_pools: ['Prod'] }, {}, true],
    ['resource_pools by path', { resource_pools: ['Cluster/Resources'] }, {}, true],
    ['resource_pools miss', { resource_pools: ['Test'] }, {}, false],
    ['AND: all hit', { target_tags: ['env:dev'], tools: ['destructive'], vm_patterns: ['web-*'] }, {}, true],
    ['AND: one miss', { target_tags: ['env:dev'], tools: ['destructive'], vm_patterns: ['db-*'] }, {}, false],
    ['empty match matches anything', {}, {}, true],
  ];
  it.each(cases)('%s', (_name, match, over, expected) => {
    const p = policy({ targets: { 'dev-vc1': { destructive: 'allow' } }, rules: [{ name: 'r', match, action: 'deny' }] });
    expect(decide(p, req(over)).rule === 'r').toBe(expected);
  });
});

describe('checkpoint precedence and per-target flags', () => {
  it('first matching rule that sets checkpoint, else target, else defaults', () => {
    const p = policy({
      defaults: { checkpoint: 'off' },
      targets: { 'dev-vc1': { checkpoint: 'required' } },
      rules: [
        { name: 'skip', match: { target_names: ['nope'] }, checkpoint: 'off' },
        { name: 'db', match: { vm_patterns: ['db-*'] }, checkpoint: 'best_effort' },
      ],
    });
    expect(decide(p, req({ objects: [{ type: 'vm', name: 'db-9' }] })).checkpoint).toBe('best_effort');
    expect(decide(p, req()).checkpoint).toBe('required');
    expect(decide(p, req({ target: { name: 'other', tags: [] } })).checkpoint).toBe('off');
    expect(decide(policy({}), req()).checkpoint).toBe('best_effort');
  });

  it('flags come from the target block over the defaults', () => {
    const p = policy({
      defaults: { max_bulk_objects: 5, max_calls_per_minute: 30, require_web_approval: false },
      targets: { 'dev-vc1': { require_web_approval: true, max_calls_per_minute: { destructive: 2 }, auto_snapshot_before_destroy: false, dry_run: true } },
    });
    const d = decide(p, req());
    expect(d).toMatchObject({ requireWebApproval: true, maxBulkObjects: 5, autoSnapshotBeforeDestroy: false, dryRun: true });
    expect(d.maxCallsPerMinute).toEqual({ read: 30, mutate: 30, destructive: 2 });
    expect(decide(p, req({ target: { name: 'x', tags: [] } })).maxCallsPerMinute).toEqual({ read: 30, mutate: 30, destructive: 30 });
  });

  it('max_calls_per_minute merges per category: a target tightening one keeps the defaults for the others', () => {
    const p = policy({ defaults: { max_calls_per_minute: { mutate: 5, read: 100 } }, targets: { 'dev-vc1': { max_calls_per_minute: { destructive: 2 } } } });
    expect(decide(p, req()).maxCallsPerMinute).toEqual({ read: 100, mutate: 5, destructive: 2 });
  });
});

describe('policy file schema', () => {
  it('rejects unknown keys and rules without action or checkpoint, naming the path', () => {
    const bad = PolicyFileSchema.safeParse({ defaults: { destructiv: 'allow' }, rules: [{ name: 'x', match: {} }] });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('defaults');
    expect(paths).toContain('rules.0');
  });
});

describe('gateway policy keys', () => {
  const unguarded: PolicyRequest = {
    tool: 'ssh__exec', category: 'mutate', target: { name: 'ssh', tags: ['downstream'] }, objects: [], override: true,
    downstream: { server: 'ssh', unguarded: true },
  };
  it('an unguarded downstream change is denied by default (fail closed), rule downstream_unlisted, override or not, with how to catalogue it', () => {
    const d = decide(policy({ defaults: { mutate: 'allow' } }), unguarded);
    expect(d).toMatchObject({ allowed: false, rule: 'downstream_unlisted', overrideWouldHelp: false, reason: expect.stringContaining('downstream_unlisted: deny') });
    expect(d.hint).toContain('{"tool": "ssh__exec", "vm_arg"');
    expect(d.hint).toContain('downstream[].vm ("ssh")');
    expect(policy({}).downstream_two_phase).toBe(false);
  });
  it('downstream_unlisted: allow hands it to the rules and defaults; a guarded downstream call or a read is not affected', () => {
    expect(decide(policy({ downstream_unlisted: 'allow', defaults: { mutate: 'allow' } }), unguarded)).toMatchObject({ allowed: true });
    expect(decide(policy({ downstream_unlisted: 'allow' }), { ...unguarded, override: false }).rule).not.toBe('downstream_unlisted');
    expect(decide(policy({ defaults: { mutate: 'allow' } }), { ...unguarded, downstream: { server: 'ssh', unguarded: false } }).allowed).toBe(true);
    expect(decide(policy({ defaults: { read: 'allow' } }), { ...unguarded, category: 'read' }).allowed).toBe(true);
  });
  it('a value other than deny|allow is a problem at its path', () => {
    const bad = PolicyFileSchema.safeParse({ downstream_unlisted: 'maybe' });
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(['downstream_unlisted']);
  });
});

describe('fnmatch', () => {
  it.each([
    ['web-1', 'web-*', true], ['web-1', 'web-?', true], ['web-10', 'web-?', false], ['db1', '[abcd]b1', true],
    ['xb1', '[!x]b1', false], ['a.b', 'a.b', true], ['aXb', 'a.b', false], ['Web-1', 'web-*', false], ['a(b)', 'a(b)', true],
  ])('%s ~ %s = %s', (name, pattern, expected) => {
    expect(fnmatch(name, pattern)).toBe(expected);
  });
});

describe('fnmatch: bounded work', () => {
  it('a pattern with many stars against 80 dashes takes at most (n+1)(m+1) steps, not exponential backtracking', () => {
    const name = '-'.repeat(80);
    const pattern = '*-*-*-*-*-*-*-prod';
    const { matched, steps } = fnmatchCounted(name, pattern);
    expect(matched).toBe(false);
    expect(steps).toBeLessThanOrEqual((name.length + 1) * (pattern.length + 1));
    const long = fnmatchCounted('-'.repeat(5000), '*-'.repeat(40) + 'prod');
    expect(long.matched).toBe(false);
    expect(long.steps).toBeLessThanOrEqual(5001 * 85);
  });

  it('agrees with a regular-expression translation on random patterns and names (as Python fnmatchcase)', () => {
    const alphabet = fc.constantFrom('a', 'b', '-', '*', '?', '[', ']', '!');
    fc.assert(fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: fc.constantFrom('a', 'b', '-', '[', ']', '!'), maxLength: 10 }), (pattern, name) => {
      let re: RegExp;
      try {
        re = referenceRegex(pattern);
      } catch {
        return fc.pre(false); // a reversed range: invalid as a RegExp (and matches nothing here, as in Python)
      }
      expect(fnmatch(name, pattern)).toBe(re.test(name));
    }), { numRuns: 2000 });
  });
});

/** Python's fnmatch.translate, reduced to what the alphabet above uses; small inputs only. */
function referenceRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '!') j++;
      if (pattern[j] === ']') j++;
      while (j < pattern.length && pattern[j] !== ']') j++;
      if (j >= pattern.length) out += '\\[';
      else {
        let body = pattern.slice(i + 1, j);
        const neg = body.startsWith('!');
        if (neg) body = body.slice(1);
        out += `[${neg ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\^/g, '\\^').replace(/\[/g, '\\[').replace(/\]/g, '\\]')}]`;
        i = j;
      }
    } else out += c.replace(/[.+^${}()|\\/\][[-]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

describe('rules matching verified callers (users, groups)', () => {
  const p = policy({
    defaults: { mutate: 'allow' },
    rules: [
      { name: 'interns-read-only', match: { groups: ['interns'] }, action: 'deny' },
      { name: 'mallory-never', match: { users: ['mallory'] }, action: 'deny' },
    ],
  });
  it('a group rule matches a caller in that group only', () => {
    expect(decide(p, req({ category: 'mutate', caller: { subject: 'ivy', groups: ['interns'] } }))).toMatchObject({ allowed: false, rule: 'interns-read-only' });
    expect(decide(p, req({ category: 'mutate', caller: { subject: 'olga', groups: ['ops'] } }))).toMatchObject({ allowed: true });
  });
  it('a user rule matches that subject', () => {
    expect(decide(p, req({ category: 'mutate', caller: { subject: 'mallory', groups: [] } }))).toMatchObject({ allowed: false, rule: 'mallory-never' });
  });
  it('without a verified caller (stdio) users/groups rules never match', () => {
    expect(decide(p, req({ category: 'mutate' }))).toMatchObject({ allowed: true, rule: 'defaults' });
  });
});
