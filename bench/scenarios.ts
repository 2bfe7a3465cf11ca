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
  /** Fixtures the scenario reads; each is created once per target, just before the first scenario needing it. */
  needs?: readonly FixtureName[];
  /** Whose key the requests carry: the target's organization (default), or the one with --profiles profiles. */
  organization?: 'main' | 'profiles';
  /**
   * A second request, sent on the same connection once the first has answered 2xx, its body built from that
   * answer. The scenario is then measured in chains: req/s is chains completed (the second request answered
   * 2xx) per second, latency runs from sending the first request to the second's answer, and CPU per request
   * is per chain. `non-2xx` counts the answers to both.
   */
  then?: FollowUp;
}

export interface FollowUp {
  /** The request as the report names it. */
  name: string;
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** The body, from the parsed JSON answer to the first request. */
  body: (answer: unknown) => string;
  perRequest?: (request: RequestParams, fixture: Fixture) => RequestParams;
}

/**
 * Per-target data the scenarios read: `intent_id` (one intent), `intent_ids` (many, to spread load),
 * `profiles_key` (the key of a second organization whose --profiles end users hold balances).
 */
export interface Fixture {
  intent_id: string;
  /** The hosted page's identifier of `intent_id`. */
  ref_code: string;
  intent_ids: string[];
  profiles_key: string;
}

/** What `bench/service.ts` can set up per target, before the first scenario that needs it. */
export type FixtureName = 'intents' | 'treasury' | 'profiles';

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

export const CREATE_INTENT: Scenario = {
  name: 'POST /connect/v1/payment-intents (3 currencies, 12 addresses)',
  method: 'POST',
  path: '/connect/v1/payment-intents',
  body: JSON.stringify({ amount: '100.00', currencies: ['USDC', 'USDT', 'ETH'], metadata: { order: 'bench' } }),
  perRequest: freshIdempotencyKey,
};
export const GET_INTENT: Scenario = { name: 'GET /connect/v1/payment-intents/{id}', method: 'GET', path: '/connect/v1/payment-intents/{intent_id}', needs: ['intents'] };
/** The default page: 50 events, 51 rows read (pagination.ts). */
export const LIST_EVENTS: Scenario = { name: 'GET /connect/v1/events', method: 'GET', path: '/connect/v1/events', needs: ['intents'] };

/**
 * Money in (issue 4). The fixture intent asks for a large amount, so every simulated deposit of 0.01 is a
 * real partial credit (ledger row, balance, intent update, event) rather than a no-op on a completed intent.
 */
export const MONEY_IN_SCENARIOS: readonly Scenario[] = [
  CREATE_INTENT,
  GET_INTENT,
  LIST_EVENTS,
  {
    name: 'POST /connect/v1/test/payment-intents/{id}/simulate-deposit (0.01, across 64 intents)',
    method: 'POST',
    path: '/connect/v1/test/payment-intents/{intent_id}/simulate-deposit',
    body: JSON.stringify({ amount: '0.01' }),
    needs: ['intents'],
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
    needs: ['intents'],
  },
];

/**
 * The hosted payment page (issue 13), what end users hit hardest: server-rendered HTML for an intent with five
 * addresses (USDC on five networks), of which it shows one card and one QR code (issue 21). No key: the targets
 * lift the per-address limit (every request of a run comes from one address).
 */
export const PAGE_SCENARIOS: readonly Scenario[] = [
  { name: 'GET /pay/{ref_code} (hosted payment page, 5 addresses)', method: 'GET', path: '/pay/{ref_code}', needs: ['intents'] },
  { name: 'GET /pay/i/{id}/status (its live status)', method: 'GET', path: '/pay/i/{intent_id}/status', needs: ['intents'] },
];

/** A valid Solana address (the wrapped-SOL mint), so USDC pays out on Solana, its cheapest network. */
const PAYOUT_DESTINATION = 'So11111111111111111111111111111111111111112';

/**
 * Money out (issue 8). Both run after the money-in scenarios and the quote + execute pairs run last: every
 * sandbox payout they create is then moved along by the service's own progress sweep (every 2 s: to
 * processing, and to completed 20 s after creation), which would otherwise run on into the next scenario.
 */
export const MONEY_OUT_SCENARIOS: readonly Scenario[] = [
  {
    // {profiles} is --profiles, written as 1,000: the name a run without the option always had.
    name: 'GET /connect/v1/balances (tenant-wide, {profiles} profiles holding 3 assets each)',
    method: 'GET',
    path: '/connect/v1/balances',
    needs: ['profiles'],
    organization: 'profiles',
  },
  {
    name: 'POST /connect/v1/payouts/quote + POST /connect/v1/payouts (0.01 USDC from the treasury; req/s = pairs/s, latency per pair)',
    method: 'POST',
    path: '/connect/v1/payouts/quote',
    body: JSON.stringify({ asset: 'USDC', amount: '0.01', destination: PAYOUT_DESTINATION }),
    perRequest: freshIdempotencyKey,
    needs: ['treasury'],
    then: {
      name: 'POST /connect/v1/payouts',
      method: 'POST',
      path: '/connect/v1/payouts',
      body: (answer) => JSON.stringify({ quote_id: (answer as { quote_id: string }).quote_id }),
      perRequest: freshIdempotencyKey,
    },
  },
];
