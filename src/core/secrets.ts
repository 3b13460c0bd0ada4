// Secrets come from one injected source. Clients read credentials through it lazily (at connect
// time, so rotating an environment variable needs no restart) and the redactor asks the same
// source which values must never appear in logs, audit lines, errors or tool results.

export interface SecretSource {
  /** The value of a secret variable, or undefined when it is not set. */
  get(name: string): string | undefined;
  /** Every secret value handed out so far or configured, for redaction. */
  knownValues(): string[];
}

/** Variable-name suffixes that hold secrets; `{PREFIX}_USER` is not one of them. */
const SECRET_SUFFIXES = ['_PASSWORD', '_CLIENT_SECRET', '_TOKEN', '_SECRET'];

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_SUFFIXES.some((s) => upper.endsWith(s));
}

/**
 * A secret source over an environment-like map. `extra` adds values that are secret although
 * they did not come from a variable (the single-site shorthand's inline password, lab passwords).
 */
export function envSecretSource(env: Record<string, string | undefined>, extra: string[] = []): SecretSource {
  const handedOut = new Set<string>(extra.filter((v) => v.length > 0));
  for (const [name, value] of Object.entries(env)) {
    if (value && isSecretName(name)) handedOut.add(value);
  }
  return {
    get(name) {
      const value = env[name];
      if (value && isSecretName(name)) handedOut.add(value);
      return value;
    },
    knownValues() {
      return [...handedOut];
    },
  };
}
