// Redaction before anything is serialized for the audit log, the logs or a tool result. Two nets:
// keys that name secrets (password, token, authorization, ...) lose their values wherever they
// appear, and every known secret value (from the injected SecretSource) is cut out of any string,
// so a password that leaks into an error message or an unexpected field still never lands.

export const REDACTED = '[REDACTED]';

const SECRET_KEY = /pass(word|wd|phrase)?$|secret|token|authori[sz]ation|api[-_]?key|bearer|cookie|credential|private[-_]?key/i;
const BEARER = /(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export function redactString(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const s of secrets) {
    // Very short values would shred ordinary text; credentials that short are not plausible.
    if (s.length >= 4 && out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out.replace(BEARER, `$1 ${REDACTED}`);
}

/** A deep copy with secrets removed. Cycles become '[Circular]'; functions are dropped. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  return walk(value, secrets, new WeakSet(), true) as T;
}

/**
 * Only known secret values and bearer headers are cut out; keys are kept. For tool results, which
 * legitimately carry a proposal `token` the agent needs, while audit lines drop it (`redact`).
 */
export function redactValues<T>(value: T, secrets: readonly string[]): T {
  return walk(value, secrets, new WeakSet(), false) as T;
}

function walk(value: unknown, secrets: readonly string[], seen: WeakSet<object>, byKey: boolean): unknown {
  if (typeof value === 'string') return redactString(value, secrets);
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  // `seen` holds the current chain of ancestors only: an object shared by two branches is not a
  // cycle and is copied into both.
  if (seen.has(value)) return '[Circular]';
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return { name: value.name, message: redactString(value.message, secrets) };
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => walk(v, secrets, seen, byKey));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = redactString(k, secrets);
      if (byKey && isSecretKey(k) && v !== null && v !== undefined && v !== '') out[key] = REDACTED;
      else out[key] = walk(v, secrets, seen, byKey);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
