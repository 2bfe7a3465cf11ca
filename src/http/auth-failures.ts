import type { FastifyRequest } from 'fastify';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { DomainError } from '../domain/errors.js';

/** Each surface counts its own failures, so failures on one never lock an address out of another. */
export type AuthSurface = 'partner' | 'operator' | 'dashboard';

/**
 * Failed authentications per client address and surface, in one-minute windows: in Redis when the rate limits
 * are (every instance shares a lockout), in each instance's memory otherwise (see KeyRateLimiter). Past the
 * budget an address's failing attempts are answered 429 before anything costly (a key lookup in the database, a
 * body parse), while its requests with a valid credential are still served: one client behind a shared
 * address cannot lock the others out. A lockout ends on its own when the minute's window ends, or when the
 * operator clears it (AuthLockouts).
 */
export class AuthFailureLimiter {
  constructor(
    readonly surface: AuthSurface,
    readonly perMinute: number,
    private readonly limiter: RateLimiterAbstract,
  ) {}

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

  /** This address's failures in the current window, and how long until the window ends. */
  async state(address: string): Promise<{ failures: number; msBeforeReset: number }> {
    const state = await this.limiter.get(address);
    return { failures: state?.consumedPoints ?? 0, msBeforeReset: state?.msBeforeNext ?? 0 };
  }

  async clear(address: string): Promise<void> {
    await this.limiter.delete(address);
  }
}

export interface LockoutState {
  surface: AuthSurface;
  failures: number;
  locked: boolean;
  /** Seconds until the window ends (the lockout with it); 0 when nothing is counted. */
  retryAfterSeconds: number;
}

/** The three surfaces' counters, which the operator can look at and clear per address. */
export class AuthLockouts {
  readonly partner: AuthFailureLimiter;
  readonly operator: AuthFailureLimiter;
  readonly dashboard: AuthFailureLimiter;

  constructor(
    readonly perMinute: number,
    counters: (surface: AuthSurface, perMinute: number) => RateLimiterAbstract,
  ) {
    const limiter = (surface: AuthSurface) => new AuthFailureLimiter(surface, perMinute, counters(surface, perMinute));
    this.partner = limiter('partner');
    this.operator = limiter('operator');
    this.dashboard = limiter('dashboard');
  }

  private get surfaces(): AuthFailureLimiter[] {
    return [this.partner, this.operator, this.dashboard];
  }

  async states(address: string): Promise<LockoutState[]> {
    return Promise.all(
      this.surfaces.map(async (limiter) => {
        const { failures, msBeforeReset } = await limiter.state(address);
        return {
          surface: limiter.surface,
          failures,
          locked: failures >= this.perMinute,
          retryAfterSeconds: failures > 0 ? Math.ceil(msBeforeReset / 1000) : 0,
        };
      }),
    );
  }

  async clear(address: string): Promise<void> {
    await Promise.all(this.surfaces.map((limiter) => limiter.clear(address)));
  }
}

export class TooManyFailures extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `Too many failed authentication attempts from this address. Retry after ${retryAfterSeconds} s.`);
  }
}
