import type { RequestParams } from 'autocannon';

/**
 * One request shape to load a target with. `perRequest` rewrites every request before it is sent, for
 * what must differ between requests (a fresh Idempotency-Key on POST /payment-intents, say); it runs in
 * the load generator, so keep it cheap.
 */
export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  perRequest?: (request: RequestParams) => RequestParams;
}

export const BARE_SCENARIOS: readonly Scenario[] = [{ name: 'GET / (hello world)', method: 'GET', path: '/' }];

/** Authenticated partner routes; each target adds the Authorization header of the key it created. */
export const HEALTH: Scenario = { name: 'GET /connect/v1/health', method: 'GET', path: '/connect/v1/health' };

export const SERVICE_SCENARIOS: readonly Scenario[] = [
  HEALTH,
  // Filters the catalog by the organization's settings (which the key lookup now joins in) and returns a larger body.
  { name: 'GET /connect/v1/capabilities', method: 'GET', path: '/connect/v1/capabilities' },
];
