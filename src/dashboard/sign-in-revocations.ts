// What a sealed cookie cannot say about itself: that it was used up. A login cookie is spent by
// its callback (a replayed callback must fail), a session cookie by its sign-out (a copy of the
// cookie must not outlive the sign-out). Kept in PostgreSQL in central mode, so every instance
// honours what another recorded (state/pg/sign-in-revocation-store.ts), and here in memory for a
// single process.

export type RevocationKind = 'login' | 'session';

export interface SignInRevocations {
  /** Records `key` as used until `until` (epoch ms); false when it was recorded already (the second use loses). */
  spend(kind: RevocationKind, key: string, until: number): Promise<boolean>;
  /** True when `key` was recorded and its record has not expired. */
  isSpent(kind: RevocationKind, key: string): Promise<boolean>;
}

/** Entries kept per kind at most: the oldest go first (a login's code is spent at the IdP too). */
const MAX_ENTRIES = 10_000;

export class MemorySignInRevocations implements SignInRevocations {
  private readonly entries: Record<RevocationKind, Map<string, number>> = { login: new Map(), session: new Map() };

  constructor(private readonly now: () => number = Date.now) {}

  async spend(kind: RevocationKind, key: string, until: number): Promise<boolean> {
    const map = this.entries[kind];
    if (await this.isSpent(kind, key)) return false;
    const now = this.now();
    for (const [k, u] of map) if (u <= now) map.delete(k);
    while (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
    map.set(key, until);
    return true;
  }

  async isSpent(kind: RevocationKind, key: string): Promise<boolean> {
    const until = this.entries[kind].get(key);
    return until !== undefined && until > this.now();
  }
}
