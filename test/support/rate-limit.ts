import type { LightMyRequestResponse } from 'fastify';

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
