import type { Caller } from '../domain/access.js';
import { findCaller, unrevokedKeyHashes } from '../store/api-keys.js';
import type { Database } from '../store/database.js';

/** The channel migration 007's triggers notify, with the organization id whose credentials changed. */
export const CREDENTIALS_CHANNEL = 'connect_credentials';

/** Prefix of migration 016's notification of a new key, before its organization id. */
const KEY_CREATED = 'created:';

/** Enough for every active key of a large deployment; beyond it the oldest entries make room. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * Who a key is, by key hash, kept in process so that an authenticated request costs no database round trip.
 * Correct only while it hears every change: a trigger notifies each change to a key or an organization in the
 * transaction that makes it, and the entries of that organization are dropped. While the listening
 * connection is down the cache is not trusted at all (every lookup goes to the database) until it listens
 * again and has been emptied. Expiry is checked by the caller from the cached row on every request.
 * Unknown keys are never cached: a key created a moment ago must work at once.
 *
 * It also knows, by the same notifications, the hash of every key not revoked (not who it is, just that it
 * exists), so that an address locked out by failed authentications can still be served with a valid key while
 * its made-up keys cost no query (see mayBeIssued).
 */
export class CallerCache {
  private readonly entries = new Map<string, Caller>();
  /** Bumped by every drop: a lookup that started before a drop must not store what it read. */
  private generation = 0;
  private listening = false;
  private unlisten: (() => Promise<void>) | null = null;
  /** Organization of each unrevoked key hash; null while it may be incomplete. */
  private issued: Map<string, string> | null = null;
  /** Reloads of `issued` run one after another, each reading the database after the change that asked for it. */
  private reloads: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(
      CREDENTIALS_CHANNEL,
      (payload) => void this.heard(payload),
      (listening) => {
        this.listening = listening;
        this.forget(null);
        if (!listening) this.issued = null;
      },
    );
    this.listening = true;
    await this.reloadIssued(null);
  }

  async stop(): Promise<void> {
    this.listening = false;
    this.forget(null);
    this.issued = null;
    await this.unlisten?.();
  }

  /** A notification: a key created (nothing cached changes), an organization changed, or (empty) anything may have. */
  private heard(payload: string): Promise<void> {
    if (payload.startsWith(KEY_CREATED)) return this.reloadIssued(payload.slice(KEY_CREATED.length));
    return this.changed(payload || null);
  }

  /** An organization's keys or status changed (null: anything may have): drop what is cached, relearn its keys. */
  changed(organizationId: string | null): Promise<void> {
    this.forget(organizationId);
    return this.reloadIssued(organizationId);
  }

  /**
   * False only when the key was certainly never issued or is revoked: while listening, with every unrevoked
   * hash known. A key created on another instance a few milliseconds ago may be missing until its notification
   * arrives; when the set cannot be trusted the answer is always true (look it up).
   */
  mayBeIssued(keyHash: string): boolean {
    return !this.listening || this.issued === null || this.issued.has(keyHash);
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

  private reloadIssued(organizationId: string | null): Promise<void> {
    this.reloads = this.reloads.then(async () => {
      try {
        const rows = await unrevokedKeyHashes(this.db, organizationId);
        if (organizationId === null) {
          this.issued = new Map(rows.map((row) => [row.key_hash, row.organization_id]));
          return;
        }
        if (!this.issued) return;
        for (const [hash, owner] of this.issued) if (owner === organizationId) this.issued.delete(hash);
        for (const row of rows) this.issued.set(row.key_hash, row.organization_id);
      } catch {
        // Unknown is safe (every key is looked up) until the next reconnection reloads everything.
        this.issued = null;
      }
    });
    return this.reloads;
  }

  private remember(keyHash: string, caller: Caller): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, caller);
  }
}
