import { RateLimiterMemory } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors.js';

/**
 * Failed authentications per client address, counted in this process's memory. Past the budget an address
 * is answered 429 before its key is looked up, so a flood of made-up keys costs no database query each.
 * Per instance on purpose: it shields each instance's database pool, and needs no shared store to do so.
 */
export class AuthFailureLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(readonly perMinute: number) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'auth-failures' });
  }

  /** Throws 429 when `address` has used up its failures; the error carries the seconds to wait. */
  async check(address: string): Promise<void> {
    const state = await this.limiter.get(address);
    if (state && state.consumedPoints >= this.perMinute) {
      throw new TooManyFailures(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }

  async record(address: string): Promise<void> {
    await this.limiter.penalty(address, 1);
  }
}

export class TooManyFailures extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Too many failed authentication attempts from this address. Retry after ${retryAfterSeconds} s.`);
  }
}
