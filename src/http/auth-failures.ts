import type { FastifyRequest } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors.js';

/** Each surface counts its own failures, so failures on one never lock an address out of another. */
export type AuthSurface = 'partner' | 'operator' | 'dashboard';

/**
 * Failed authentications per client address and surface, counted in this process's memory. Past the budget
 * an address's failing attempts are answered 429 before anything costly (a key lookup in the database, a
 * body parse), while its requests with a valid credential are still served: one client behind a shared
 * address cannot lock the others out. Per instance on purpose: it shields each instance's database pool and
 * needs no shared store to do so. A lockout ends on its own when the minute's window ends.
 */
export class AuthFailureLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(
    readonly surface: AuthSurface,
    readonly perMinute: number,
  ) {
    this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: `auth-failures-${surface}` });
  }

  /** Throws 429 when the request's address has used up its failures on this surface. */
  async check(request: FastifyRequest): Promise<void> {
    const state = await this.limiter.get(request.ip);
    if (state && state.consumedPoints >= this.perMinute) {
      throw new TooManyFailures(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }

  /** Counts one failure; the one that uses up the budget is logged, so the operator sees who is locked out. */
  async record(request: FastifyRequest): Promise<void> {
    const state = await this.limiter.penalty(request.ip, 1);
    if (state.consumedPoints === this.perMinute) {
      const seconds = Math.ceil(state.msBeforeNext / 1000);
      request.log.warn({ address: request.ip, surface: this.surface, seconds }, `authentication lockout: ${request.ip} on ${this.surface} for ${seconds} s`);
    }
  }
}

export class TooManyFailures extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Too many failed authentication attempts from this address. Retry after ${retryAfterSeconds} s.`);
  }
}
