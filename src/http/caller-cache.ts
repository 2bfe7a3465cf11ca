import type { Caller } from '../domain/access.js';
import { findCaller } from '../store/api-keys.js';
import type { Database } from '../store/database.js';

/** The channel migration 007's triggers notify, with the organization id whose credentials changed. */
export const CREDENTIALS_CHANNEL = 'connect_credentials';

/** Enough for every active key of a large deployment; beyond it the oldest entries make room. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Who a key is, by key hash, kept in process so that an authenticated request costs no database round trip.
 * Correct only while it hears every change: a trigger notifies each change to a key or an organization in the
 * transaction that makes it, and the entries of that organization are dropped. While the listening
 * connection is down the cache is not trusted at all (every lookup goes to the database) until it listens
 * again and has been emptied. Expiry is checked by the caller from the cached row on every request.
 * Unknown keys are never cached: a key created a moment ago must work at once.
 */
export class CallerCache {
  private readonly entries = new Map<string, Caller>();
  /** Bumped by every drop: a lookup that started before a drop must not store what it read. */
  private generation = 0;
  private listening = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(
      CREDENTIALS_CHANNEL,
      (organizationId) => this.forget(organizationId || null),
      (listening) => {
        this.listening = listening;
        this.forget(null);
      },
    );
    this.listening = true;
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.forget(null);
    await this.unlisten?.();
  }

  /** Whether cached answers are used: only while every change is heard. */
  get trusted(): boolean {
    return this.listening;
  }

  async find(keyHash: string): Promise<Caller | null> {
    if (!this.listening) return findCaller(this.db, keyHash);
    const cached = this.entries.get(keyHash);
    if (cached) return cached;
    const generation = this.generation;
    const caller = await findCaller(this.db, keyHash);
    if (caller && generation === this.generation && this.listening) this.remember(keyHash, caller);
    return caller;
  }

  /** The cached caller of a key, without asking the database: null when not cached or the cache is not trusted. */
  cached(keyHash: string): Caller | null {
    return this.listening ? (this.entries.get(keyHash) ?? null) : null;
  }

  /** Drops one organization's entries, or every entry (null): after a change, or when changes may have been missed. */
  forget(organizationId: string | null): void {
    this.generation++;
    if (organizationId === null) {
      this.entries.clear();
      return;
    }
    for (const [hash, caller] of this.entries) {
      if (caller.organizationId === organizationId) this.entries.delete(hash);
    }
  }

  private remember(keyHash: string, caller: Caller): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, caller);
  }
}
