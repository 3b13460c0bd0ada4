// Redaction before anything is serialized for the audit log, the logs or a tool result. Two nets:
// keys that name secrets (password, token, authorization, ...) lose their values wherever they
// appear, and every known secret value (from the injected SecretSource) is cut out of any string,
// so a password that leaks into an error message or an unexpected field still never lands.

export const REDACTED = '[REDACTED]';

const SECRET_KEY = /pass(word|wd|phrase)?$|secret|token|authori[sz]ation|api[-_]?key|bearer|cookie|credential|private[-_]?key/i;
/**
 * Rules on the key in snake_case (`userPin` -> `user_pin`, `X-Api-Key` -> `x_api_key`): pwd, pin,
 * any `*_key`, and session credentials. `session_id` (a Zerto FLR session, an identifier the agent
 * passes back) is deliberately not one of them.
 */
const SECRET_SNAKE_KEY = /(^|_)(pwd|pin|pin_?code)$|_key$|^key$|(^|_)session$|(^|_)session_?(key|token|cookie|secret)$|sessionid$/;
/** `*_key` names that vSphere uses for device numbers (controller_key: 1000): a number is not a secret. */
const NUMERIC_KEY_OK = /_key$/;
const BEARER = /(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
/** user:password@ in any URL (https://admin:s3cret@vc.example/...). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):([^\s/@]+)@/gi;
/** Password=...; in connection strings and key=value text (Pwd=, password=, secret=, token=, api_key=...). */
const KEY_VALUE = /\b(password|passwd|pwd|pass|secret|client[-_]?secret|token|access[-_]?token|api[-_]?key|access[-_]?key)(\s*=\s*)("[^"]*"|'[^']*'|[^\s;&,'"]+)/gi;
/** Command-line passwords: `mysql -pSECRET`, `--password=SECRET`, `--password SECRET`. */
const CLI_PASSWORD = /(^|\s)(-p)(?=[^\s-])(\S+)|(--pass(?:word)?)([= ])(\S+)/g;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || SECRET_SNAKE_KEY.test(snake(key));
}

function snake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s.]+/g, '_').toLowerCase();
}

export function redactString(value: string, secrets: readonly string[]): string {
  let out = value;
  for (const s of secrets) {
    // Very short values would shred ordinary text; credentials that short are not plausible.
    if (s.length >= 4 && out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(URL_USERINFO, `$1:${REDACTED}@`)
    .replace(KEY_VALUE, `$1$2${REDACTED}`)
    .replace(CLI_PASSWORD, (_m, lead: string | undefined, p: string | undefined, _v, long: string | undefined, sep: string | undefined) =>
      p !== undefined ? `${lead ?? ''}${p}${REDACTED}` : `${long}${sep}${REDACTED}`);
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
      if (byKey && isSecretKey(k) && v !== null && v !== undefined && v !== '' && !(typeof v === 'number' && NUMERIC_KEY_OK.test(snake(k)) && !SECRET_KEY.test(k))) out[key] = REDACTED;
      else out[key] = walk(v, secrets, seen, byKey);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
