// Secrets never reach the audit file: a property test plants a configured credential value (or a
// bearer header) anywhere in a tool's arguments and checks the bytes on disk.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditWriter } from '../../src/audit/audit-writer.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { redact, redactString, redactValues, REDACTED } from '../../src/core/redact.js';
import { tempDir } from '../support/harness.js';

const SECRET = 'Sup3r-S3cret!pw';
const env = { VC_PROD1_USER: 'administrator@vsphere.local', VC_PROD1_PASSWORD: SECRET, ZVM_CLIENT_SECRET: 'cl1ent-s3cret-value' };

/** Arbitrary JSON-ish args with the secret planted somewhere: as a value, inside a string, as a key. */
const planted = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.nat({ max: 5 })), { maxLength: 4 }),
    fc.constantFrom(SECRET, 'cl1ent-s3cret-value', `Bearer eyJhbGciOiJIUzI1NiJ9.${'x'.repeat(20)}`),
    fc.string({ maxLength: 10 }),
    fc.string({ maxLength: 10 }),
    fc.constantFrom('value', 'key', 'embedded'),
  )
  .map(([base, path, secret, before, after, where]) => {
    const payload = where === 'embedded' ? `${before}${secret}${after}` : secret;
    const root: Record<string, unknown> = { data: base };
    let cursor: Record<string, unknown> = root;
    for (const p of path) {
      const next: Record<string, unknown> = {};
      cursor[`k${String(p)}`] = next;
      cursor = next;
    }
    if (where === 'key') cursor[payload] = 'x';
    else cursor.leaf = payload;
    return root;
  });

describe('redaction', () => {
  it('a secret planted anywhere in the arguments never reaches the audit file', async () => {
    const dir = tempDir();
    const path = join(dir, 'audit.jsonl');
    const secrets = envSecretSource(env);
    const writer = new AuditWriter(path, () => secrets.knownValues());
    await fc.assert(
      fc.asyncProperty(planted, async (args) => {
        await writer.write({ id: 'x', target: 't', tool: 'power_on_vm', phase: 'call', identity: 'c/1', args });
      }),
      { numRuns: 300 },
    );
    await writer.close();
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(300);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('cl1ent-s3cret-value');
    expect(text).not.toMatch(/Bearer eyJ/);
    expect(text).toContain(REDACTED);
  });

  it('keys naming secrets lose their values in audit records; tool results keep a proposal token', () => {
    const rec = { password: 'p', nested: { Authorization: 'Basic abc', api_key: 'k' }, token: 'proposal-token-123', name: 'web-1' };
    expect(redact(rec, [])).toEqual({ password: REDACTED, nested: { Authorization: REDACTED, api_key: REDACTED }, token: REDACTED, name: 'web-1' });
    expect(redactValues(rec, []).token).toBe('proposal-token-123');
    expect(redactValues({ msg: `login failed for ${SECRET}` }, [SECRET]).msg).toBe(`login failed for ${REDACTED}`);
  });

  it('the secret source hands out values lazily and remembers them for redaction', () => {
    const s = envSecretSource({ X_USER: 'u', X_PASSWORD: 'lazy-pass-1', OTHER: 'not-secret' });
    expect(s.knownValues()).toContain('lazy-pass-1');
    expect(s.knownValues()).not.toContain('not-secret');
    expect(s.get('X_USER')).toBe('u');
  });
});

describe('redaction of shared structures', () => {
  it('copies an object shared by two branches instead of calling it circular; real cycles are cut', () => {
    const shared = { start: 'a', end: 'b' };
    expect(redactValues({ one: shared, two: shared }, [])).toEqual({ one: shared, two: shared });
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(redactValues(cyclic, [])).toEqual({ name: 'x', self: '[Circular]' });
  });
});

// Key names and value shapes the red team found leaking, as properties: any spelling of a secret
// key (case, separators, prefixes), any value shape under it, and the secret inside text (URLs,
// connection strings, command lines) with arbitrary text around it.
const secretValue = fc.stringMatching(/^[A-Za-z0-9!#%*+]{6,20}$/).filter((s) => /[0-9]/.test(s) && /[A-Za-z]/.test(s));
const secretKeyName = fc.tuple(
  fc.constantFrom('pwd', 'pin', 'pin_code', 'api_key', 'ssh_key', 'access_key', 'private_key', 'session', 'session_token', 'sessionid', 'password', 'client_secret', 'token'),
  fc.constantFrom('', 'db_', 'user_', 'x-', 'vault.'),
  fc.constantFrom('snake', 'UPPER', 'camel'),
).map(([base, prefix, style]) => {
  const name = `${prefix}${base}`;
  if (style === 'UPPER') return name.toUpperCase();
  if (style === 'camel') return name.replace(/[_.-]([a-z])/g, (_m, c: string) => c.toUpperCase());
  return name;
});
const shaped = (secret: string) => fc.constantFrom(secret, [secret], { value: secret }, [{ inner: secret }]);

describe('wider redaction (property tests)', () => {
  it('a value under any spelling of a secret key never survives, whatever its shape', () => {
    fc.assert(fc.property(secretKeyName, secretValue.chain((s) => fc.tuple(fc.constant(s), shaped(s))), fc.jsonValue({ maxDepth: 2 }), (key, [secret, value], noise) => {
      const out = JSON.stringify(redact({ noise, args: { [key]: value } }, []));
      expect(out).not.toContain(secret);
    }), { numRuns: 500 });
  });

  it('a password inside text never survives: URL userinfo, connection strings, -pSECRET, --password', () => {
    const text = secretValue.chain((secret) => fc.tuple(
      fc.constant(secret),
      fc.constantFrom(
        `https://admin:${secret}@vc.example.test/sdk`,
        `postgres://svc:${secret}@db:5432/app`,
        `Server=db;User Id=sa;Password=${secret};`,
        `Data Source=x;Pwd=${secret}`,
        `mysql -u root -p${secret} appdb`,
        `backup --password=${secret} --all`,
        `backup --password ${secret}`,
        `curl "https://x.test/api?api_key=${secret}&q=1"`,
      ),
      fc.string({ maxLength: 12 }).map((s) => s.replace(/\S$/, ' ')),
      fc.string({ maxLength: 12 }).map((s) => ` ${s}`),
    ));
    fc.assert(fc.property(text, ([secret, body, before, after]) => {
      expect(redactString(`${before}${body}${after}`, [])).not.toContain(secret);
      expect(JSON.stringify(redactValues({ message: `${before}${body}${after}` }, []))).not.toContain(secret);
    }), { numRuns: 500 });
  });

  it('ordinary keys and identifiers keep their values', () => {
    const rec = { vm: 'web-01', session_id: 'flr-123', controller_key: 1000, pinned: true, target: 'lab-vc1', tag: 'ai:agent|power_off|vm=web-01|change=c1', url: 'https://vc.example.test/sdk', cmd: 'mkdir -p /tmp/x' };
    expect(redact(rec, [])).toEqual(rec);
  });
});
