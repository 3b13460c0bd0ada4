// Writes that must land even when the database is lost at the moment they are made: a proposal's
// final state after its change ran, or its release back to `pending`. Each is one idempotent,
// conditional statement (it only moves a row out of `executing`), so running it again after an
// ambiguous failure is harmless. They are kept in order and retried every `retryMs` and each time
// the database comes back, until they land or the process ends; what a dead process still held
// is closed by a live instance's sweep (see interrupted-sweep.ts).
import type { Logger } from '../../core/logger.js';
import type { Db } from './db.js';

interface Held { text: string; values: unknown[]; what: string }

export class HeldWrites {
  private readonly held: Held[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Db, private readonly logger: Logger, private readonly retryMs = 1_000) {
    db.onUp(() => this.kick());
  }

  /** Runs the statement now; when that fails, holds it for later and resolves all the same. */
  async write(what: string, text: string, values: unknown[]): Promise<'written' | 'held'> {
    if (!this.held.length) {
      try {
        await this.db.query(text, values);
        return 'written';
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, what }, 'shared state write held until the database is back');
      }
    }
    this.held.push({ text, values, what });
    this.later();
    return 'held';
  }

  get size(): number {
    return this.held.length;
  }

  async drain(ms: number): Promise<number> {
    const until = Date.now() + ms;
    while (this.held.length && Date.now() < until && this.db.up) {
      this.kick();
      await Promise.race([this.running, new Promise((r) => setTimeout(r, 100))]);
    }
    clearTimeout(this.timer);
    return this.held.length;
  }

  private later(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.retryMs);
    this.timer.unref();
  }

  private kick(): void {
    if (this.running || !this.held.length || !this.db.up) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.held.length) this.later();
    });
  }

  private async run(): Promise<void> {
    while (this.held.length && this.db.up) {
      const next = this.held[0]!;
      try {
        await this.db.query(next.text, next.values);
      } catch {
        return;
      }
      this.held.shift();
      this.logger.info({ what: next.what }, 'held shared state write landed');
    }
  }
}
