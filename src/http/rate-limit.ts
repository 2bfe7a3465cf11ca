import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { openRedis, type RedisLog } from '../store/redis.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the budget is whole again. */
  resetSeconds: number;
}

export interface RedisStore {
  url: string;
  /** Inserted after `connect:rl:` in every key. */
  keyPrefix: string;
  log: RedisLog;
}

const failuresInMemory = (surface: string, perMinute: number) =>
  new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: `auth-failures-${surface}` });

/** `points` per window of `seconds`; one-second windows by default (a key's requests per second). */
export interface Budget {
  points: number;
  seconds: number;
}

/** A key whose budget changes starts on fresh counters: the prefix holds the budget (`rps20`, `60s:30`). */
const prefix = ({ points, seconds }: Budget) => (seconds === 1 ? `rps${points}` : `${seconds}s:${points}`);

const inMemory = (budget: Budget) => new RateLimiterMemory({ points: budget.points, duration: budget.seconds, keyPrefix: prefix(budget) });

/**
 * Per-key budget of `rate_limit_rps` requests per one-second window. With the Redis or PostgreSQL store every
 * instance draws from the same counters, so the limit holds however many instances serve one key; in memory
 * each instance counts on its own.
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  private constructor(
    private readonly make: (budget: Budget) => RateLimiterAbstract,
    /**
     * Counters of failed authentications (src/http/auth-failures.ts), per minute: in Redis beside the keys'
     * when that is the store, so every instance shares a lockout and the operator's clear reaches them all;
     * in memory otherwise (in PostgreSQL each failure would cost the write a lockout is there to spare).
     */
    readonly failureCounters: (surface: string, perMinute: number) => RateLimiterAbstract = failuresInMemory,
    /** Releases the store's connection; the limiter is not used afterwards. */
    readonly close: () => Promise<void> = async () => {},
  ) {}

  static inMemory(): KeyRateLimiter {
    return new KeyRateLimiter(inMemory);
  }

  /**
   * Counters in Redis, one atomic increment per request. When Redis fails or is slow to answer, the request is
   * counted by an in-memory limiter of the same budget instead: limited per instance, never unlimited, never
   * an error.
   */
  static async redis(store: RedisStore): Promise<KeyRateLimiter> {
    const client = await openRedis(store.url, store.log);
    return new KeyRateLimiter(
      (budget) =>
        new RateLimiterRedis({
          storeClient: client,
          points: budget.points,
          duration: budget.seconds,
          keyPrefix: `connect:rl:${store.keyPrefix}${prefix(budget)}`,
          insuranceLimiter: inMemory(budget),
        }),
      (surface, perMinute) =>
        new RateLimiterRedis({
          storeClient: client,
          points: perMinute,
          duration: 60,
          keyPrefix: `connect:rl:${store.keyPrefix}auth-failures-${surface}`,
          insuranceLimiter: failuresInMemory(surface, perMinute),
        }),
      async () => client.disconnect(),
    );
  }

  static shared(pool: pg.Pool): KeyRateLimiter {
    return new KeyRateLimiter(
      (budget) =>
        new RateLimiterPostgres({
          storeClient: pool,
          storeType: 'pool',
          tableName: 'rate_limit_counters',
          tableCreated: true,
          clearExpiredByTimeout: true,
          points: budget.points,
          duration: budget.seconds,
          keyPrefix: prefix(budget),
        }),
    );
  }

  /** Spends `points` (the request's cost, see requestCost) of the key's budget for this second. */
  consume(keyId: string, rps: number, points = 1): Promise<RateLimitDecision> {
    return this.spend(keyId, { points: rps, seconds: 1 }, points);
  }

  /** Spends `points` of the key's budget for the current window. */
  async spend(keyId: string, budget: Budget, points = 1): Promise<RateLimitDecision> {
    try {
      const res = await this.limiter(budget).consume(keyId, points);
      return decision(true, budget.points, res);
    } catch (rejection) {
      // The library rejects with a RateLimiterRes when the budget is spent, with an Error when the store fails.
      if (rejection instanceof RateLimiterRes) return decision(false, budget.points, rejection);
      throw rejection;
    }
  }

  /** Gives back `points` spent, for a request that turned out not to be one the budget limits. */
  async giveBack(keyId: string, budget: Budget, points = 1): Promise<void> {
    await this.limiter(budget).reward(keyId, points);
  }

  private limiter(budget: Budget): RateLimiterAbstract {
    let limiter = this.limiters.get(prefix(budget));
    if (!limiter) {
      limiter = this.make(budget);
      this.limiters.set(prefix(budget), limiter);
    }
    return limiter;
  }
}

function decision(allowed: boolean, limit: number, res: RateLimiterRes): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/** The RateLimit-* headers of a decision; a refusal becomes 429 `rate_limited` (with Retry-After, from the reset). */
export function enforce(reply: FastifyReply, budget: RateLimitDecision, who: string): void {
  reply.header('ratelimit-limit', budget.limit);
  reply.header('ratelimit-remaining', budget.remaining);
  reply.header('ratelimit-reset', budget.resetSeconds);
  if (!budget.allowed) {
    throw new DomainError('rate_limited', `Too many requests: ${who} allows ${budget.limit} per second. Retry after ${budget.resetSeconds} s.`);
  }
}
