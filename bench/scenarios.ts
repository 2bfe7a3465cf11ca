import { randomUUID } from 'node:crypto';
import type { RequestParams } from 'autocannon';

/**
 * One request shape to load a target with. `perRequest` rewrites every request before it is sent, for
 * what must differ between requests (a fresh Idempotency-Key on POST /payment-intents, say); it runs in
 * the load generator, so keep it cheap.
 */
export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** May name fixture values, e.g. `{intent_id}`, filled in per target once its fixture exists. */
  path: string;
  body?: string;
  headers?: Record<string, string>;
  perRequest?: (request: RequestParams, fixture: Fixture) => RequestParams;
}

/** Per-target data the scenarios read: `intent_id` (one intent), `intent_ids` (many, to spread load). */
export interface Fixture {
  intent_id: string;
  intent_ids: string[];
}

export const BARE_SCENARIOS: readonly Scenario[] = [{ name: 'GET / (hello world)', method: 'GET', path: '/' }];

/** Authenticated partner routes; each target adds the Authorization header of the key it created. */
export const HEALTH: Scenario = { name: 'GET /connect/v1/health', method: 'GET', path: '/connect/v1/health' };

export const SERVICE_SCENARIOS: readonly Scenario[] = [
  HEALTH,
  // Filters the catalog by the organization's settings (which the key lookup now joins in) and returns a larger body.
  { name: 'GET /connect/v1/capabilities', method: 'GET', path: '/connect/v1/capabilities' },
];

/** A fresh Idempotency-Key per request, as a real client sends for each new operation. */
const freshIdempotencyKey = (request: RequestParams): RequestParams => ({
  ...request,
  headers: { ...request.headers, 'idempotency-key': randomUUID() },
});

/**
 * Money in (issue 4). The fixture intent asks for a large amount, so every simulated deposit of 0.01 is a
 * real partial credit (ledger row, balance, intent update, event) rather than a no-op on a completed intent.
 */
export const MONEY_IN_SCENARIOS: readonly Scenario[] = [
  {
    name: 'POST /connect/v1/payment-intents (3 currencies, 12 addresses)',
    method: 'POST',
    path: '/connect/v1/payment-intents',
    body: JSON.stringify({ amount: '100.00', currencies: ['USDC', 'USDT', 'ETH'], metadata: { order: 'bench' } }),
    perRequest: freshIdempotencyKey,
  },
  { name: 'GET /connect/v1/payment-intents/{id}', method: 'GET', path: '/connect/v1/payment-intents/{intent_id}' },
  { name: 'GET /connect/v1/events', method: 'GET', path: '/connect/v1/events' },
  {
    name: 'POST /connect/v1/test/payment-intents/{id}/simulate-deposit (0.01, across 64 intents)',
    method: 'POST',
    path: '/connect/v1/test/payment-intents/{intent_id}/simulate-deposit',
    body: JSON.stringify({ amount: '0.01' }),
    perRequest: (request, fixture) => ({
      ...request,
      path: `/connect/v1/test/payment-intents/${fixture.intent_ids[Math.floor(Math.random() * fixture.intent_ids.length)]}/simulate-deposit`,
    }),
  },
  // Credits to one intent take its row lock one after another, by design: this is that ceiling.
  {
    name: 'POST /connect/v1/test/payment-intents/{id}/simulate-deposit (0.01, one hot intent)',
    method: 'POST',
    path: '/connect/v1/test/payment-intents/{intent_id}/simulate-deposit',
    body: JSON.stringify({ amount: '0.01' }),
  },
];
