import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { DOCS_BASE } from './app.js';

/**
 * The limiter counts in one-second windows of real time, which a test cannot place. So rate-limit tests never
 * assume where a window ends: they send requests one at a time until the first 429 (within a bound) and
 * assert what holds wherever the windows fall. In the window of the first 429 every earlier request was
 * allowed, so the `rps` responses just before it are that window's whole budget, remaining rps-1 … 0.
 */
export async function untilFirst429(
  call: (attempt: number) => Promise<LightMyRequestResponse>,
  bound = 100,
): Promise<LightMyRequestResponse[]> {
  const responses: LightMyRequestResponse[] = [];
  while (responses.length < bound) {
    const res = await call(responses.length);
    responses.push(res);
    if (res.statusCode === 429) return responses;
  }
  throw new Error(`no 429 within ${bound} requests`);
}

export const remainingOf = (responses: LightMyRequestResponse[]) => responses.map((r) => r.headers['ratelimit-remaining']);

/** The contract's 429 body for a key allowed `rps` requests per second. */
export const rateLimitedBody = (rps: number) => ({
  error: {
    type: 'rate_limit_error',
    code: 'rate_limited',
    message: expect.stringContaining(`${rps} per second`),
    param: null,
    doc_url: `${DOCS_BASE}/errors/rate_limited`,
  },
});
