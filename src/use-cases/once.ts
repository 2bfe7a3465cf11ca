import { DomainError } from '../domain/errors.js';
import type { Database, Sql } from '../store/database.js';
import {
  claimIdempotencyKey,
  findIdempotentResponse,
  heldResponse,
  storeIdempotentResponse,
  type AnswerClaim,
  type IdempotencyScope,
  type StoredAnswer,
  type StoredResponse,
} from '../store/idempotency.js';

/** The contract's "typical" lifetime of a key; a record past it is purged and the key may be used anew. */
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** What a request is answered, fresh or replayed from the record under its key. */
export interface Answer {
  replayed: boolean;
  status: number;
  body: string;
  /** On a replay, the fields answered null because the original answer showed a secret in them. */
  withheld: readonly string[];
}

/** Where work after the commit reports (a live payout's first attempt logs what leaves it in doubt). */
export interface AfterCommitLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * A request's idempotency key, as the operation that claims it sees it (docs/conventions.md, Idempotency): the
 * key's scope, the hash of the request, and how the value the operation returns is answered. The route that builds
 * it presents the value (and names the fields that show a secret: answered this once, stored null); the operation
 * stores that answer under the key in its own transaction, so what a replay answers is what was answered.
 */
export interface Once<V> {
  scope: IdempotencyScope;
  requestHash: string;
  /** The answer sent now, and the one stored (the same, with any secret field null). */
  answer(value: V): { sent: StoredAnswer; stored: StoredAnswer };
  /** A business failure's answer, stored and replayed like a success; null for a failure that must not be stored (a 5xx: a retry runs again). */
  failure(error: unknown): StoredAnswer | null;
  log: AfterCommitLog;
}

/** What an operation's transaction did: its value, and work for after the commit (a chain call never runs inside a transaction). */
export interface Done<V> {
  value: V;
  afterCommit?: ((log: AfterCommitLog) => Promise<void>) | null;
}

/** Carries a business failure out of the operation's transaction, so that its writes roll back first. */
class StorableFailure extends Error {
  constructor(readonly answer: StoredAnswer) {
    super('a business failure, stored as the answer');
  }
}

const fresh = ({ status, body }: StoredAnswer): Answer => ({ replayed: false, status, body, withheld: [] });

/**
 * Runs an operation once per idempotency key. An answer already stored under the key is replayed before any work
 * is done. Otherwise the outside step runs (validation, prices, custody: never inside a transaction), then the key
 * is claimed, the writes run and the answer is stored in one transaction, so concurrent requests with one key write
 * once and a crash leaves everything or nothing (a concurrent twin may repeat the outside step; its result is
 * discarded and the winner's answer replayed). Business failures (4xx) are stored and replayed like successes,
 * their writes rolled back; a 5xx stores nothing, so a retry runs the operation again.
 */
export class Operations {
  constructor(private readonly db: Database) {}

  /** An operation whose writes run in a transaction of their own, with the claim. */
  async once<V>(once: Once<V>, prepare: () => Promise<(tx: Sql) => Promise<Done<V>>>): Promise<Answer> {
    const earlier = await findIdempotentResponse(this.db, once.scope);
    if (earlier) return replay(earlier, once.requestHash);
    try {
      const write = await prepare();
      // The work after commit comes out with the answer: a body run again after a conflict keeps nothing of its first run.
      const { answer, afterCommit } = await this.db.transaction(async (tx): Promise<{ answer: Answer; afterCommit: Done<V>['afterCommit'] }> => {
        const held = await claimIdempotencyKey(tx, once.scope, once.requestHash, IDEMPOTENCY_TTL_SECONDS);
        if (held) return { answer: replay(held, once.requestHash), afterCommit: null };
        let done: Done<V>;
        try {
          done = await write(tx);
        } catch (error) {
          const failure = storable(once, error);
          throw failure ? new StorableFailure(failure) : error;
        }
        const { sent, stored } = once.answer(done.value);
        await storeIdempotentResponse(tx, once.scope, stored);
        return { answer: fresh(sent), afterCommit: done.afterCommit };
      });
      if (afterCommit) void afterCommit(once.log).catch((err: unknown) => once.log.error({ err }, 'work after commit failed; a worker resumes it'));
      return answer;
    } catch (error) {
      const failure = error instanceof StorableFailure ? error.answer : storable(once, error);
      if (failure) return this.storeFailure(once, failure);
      throw error;
    }
  }

  /**
   * An operation whose writes are one statement that also claims the key and stores the answer (`claimCte`): no
   * transaction, one round trip. The statement resolves false when another request holds the key, having written nothing.
   */
  async inOneStatement<V>(once: Once<V>, prepare: () => Promise<(sql: Sql, claim: (value: V) => AnswerClaim) => Promise<boolean>>): Promise<Answer> {
    const earlier = await findIdempotentResponse(this.db, once.scope);
    if (earlier) return replay(earlier, once.requestHash);
    try {
      const write = await prepare();
      let sent: StoredAnswer | null = null;
      const claimed = await write(this.db, (value) => {
        const answer = once.answer(value);
        sent = answer.sent;
        return { scope: once.scope, requestHash: once.requestHash, ttlSeconds: IDEMPOTENCY_TTL_SECONDS, status: answer.stored.status, body: answer.stored.body };
      });
      if (claimed) return fresh(sent!);
      // The holder's statement committed before ours could decide, so its answer is there to replay.
      return replay((await heldResponse(this.db, once.scope))!, once.requestHash);
    } catch (error) {
      const failure = storable(once, error);
      if (failure) return this.storeFailure(once, failure);
      throw error;
    }
  }

  private storeFailure<V>(once: Once<V>, failure: StoredAnswer): Promise<Answer> {
    return this.db.transaction(async (tx) => {
      // Another request with this key may have committed in between: then its answer is the answer.
      const held = await claimIdempotencyKey(tx, once.scope, once.requestHash, IDEMPOTENCY_TTL_SECONDS);
      if (held) return replay(held, once.requestHash);
      await storeIdempotentResponse(tx, once.scope, failure);
      return fresh(failure);
    });
  }
}

/** The failure's answer when it is one to store: never the key's own conflict, which concerns this request only. */
const storable = <V>(once: Once<V>, error: unknown): StoredAnswer | null =>
  error instanceof DomainError && error.code === 'idempotency_conflict' ? null : once.failure(error);

function replay(held: StoredResponse, hash: string): Answer {
  if (held.request_hash !== hash) {
    throw new DomainError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with a different request. Use a fresh key for a new operation.',
      'Idempotency-Key',
    );
  }
  return { replayed: true, status: held.response_status, body: held.response_body, withheld: held.withheld };
}
