import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends and the budget is whole again. */
  resetSeconds: number;
}

/**
 * Per-key budget of `rate_limit_rps` requests per one-second window. With the PostgreSQL store every
 * instance draws from the same counters, so the limit holds however many instances serve one key.
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  private constructor(private readonly make: (rps: number) => RateLimiterAbstract) {}

  static inMemory(): KeyRateLimiter {
    return new KeyRateLimiter((rps) => new RateLimiterMemory({ points: rps, duration: 1, keyPrefix: `rps${rps}` }));
  }

  static shared(pool: pg.Pool): KeyRateLimiter {
    return new KeyRateLimiter(
      (rps) =>
        new RateLimiterPostgres({
          storeClient: pool,
          storeType: 'pool',
          tableName: 'rate_limit_counters',
          tableCreated: true,
          clearExpiredByTimeout: true,
          points: rps,
          duration: 1,
          keyPrefix: `rps${rps}`,
        }),
    );
  }

  async consume(keyId: string, rps: number): Promise<RateLimitDecision> {
    let limiter = this.limiters.get(rps);
    if (!limiter) {
      limiter = this.make(rps);
      this.limiters.set(rps, limiter);
    }
    try {
      const res = await limiter.consume(keyId);
      return decision(true, rps, res);
    } catch (rejection) {
      // The library rejects with a RateLimiterRes when the budget is spent, with an Error when the store fails.
      if (rejection instanceof RateLimiterRes) return decision(false, rps, rejection);
      throw rejection;
    }
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
