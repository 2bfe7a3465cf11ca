import { randomUUID } from 'node:crypto';
import type { Fixture, FixtureName } from './scenarios.js';

/** Creates, through the operator API, an active organization and a test key whose rate limit never binds. */
export async function createPartnerKey(baseUrl: string, adminToken: string, name = 'Benchmark'): Promise<string> {
  return (await createOrganization(baseUrl, adminToken, name)).key;
}

/** As createPartnerKey, with the organization's id (for the operator API's per-organization routes). */
export async function createOrganization(baseUrl: string, adminToken: string, name: string): Promise<{ id: string; key: string }> {
  const organization = await post<{ id: string }>(`${baseUrl}/admin/v1/organizations`, adminToken, {
    name,
    status: 'active',
  });
  // 100000 rps is the highest limit the API accepts; the load generator stays far below it.
  const key = await post<{ key: string }>(`${baseUrl}/admin/v1/organizations/${organization.id}/keys`, adminToken, {
    mode: 'test',
    rate_limit_rps: 100_000,
  });
  return { id: organization.id, key: key.key };
}

export interface FixtureContext {
  baseUrl: string;
  adminToken: string;
  /** The key of the target's organization, which the scenarios use unless they say otherwise. */
  partnerKey: string;
  /** Filled in as fixtures are created. */
  fixture: Fixture;
  /** End users of the `profiles` fixture (--profiles); 1,000 when not given. */
  profiles?: number;
}

export interface FixtureSpec {
  /** What it holds, for the report. */
  description(context: FixtureContext): string;
  create(context: FixtureContext): Promise<void>;
}

export const emptyFixture = (): Fixture => ({ intent_id: '', ref_code: '', intent_ids: [], profiles_key: '' });

/** Fixtures by name; the sizes here are what the report's descriptions say. */
export const FIXTURES: Record<FixtureName, FixtureSpec> = {
  intents: {
    description: () => '64 intents of 100,000,000 USDC, the first with 60 deposits of 0.01',
    create: createIntents,
  },
  treasury: {
    description: () => 'the organization treasury funded with 500,000,000 USDC on Solana (one standalone address, one deposit)',
    create: fundTreasury,
  },
  profiles: {
    description: (context) => {
      const profiles = profilesOf(context);
      const each = (n: number) => n.toLocaleString('en');
      return (
        `a second organization with ${each(profiles)} profiles, each holding USDC/solana, USDT/tron and ETH/base ` +
        `(${each(profiles * HOLDINGS.length)} addresses, ${each(profiles * HOLDINGS.length)} deposits, ${IN_FLIGHT} requests in flight)`
      );
    },
    create: createProfiles,
  },
};

/**
 * What the money-in scenarios read: one intent, with a few deposits so that GET /events has rows. Its amount
 * is far above what a run can deposit at 0.01 a time, so it stays pending.
 */
async function createIntents({ baseUrl, partnerKey, fixture }: FixtureContext): Promise<void> {
  const intentIds: string[] = [];
  for (let i = 0; i < 64; i++) {
    const intent = await post<{ id: string; ref_code: string }>(
      `${baseUrl}/connect/v1/payment-intents`,
      partnerKey,
      { amount: '100000000', currencies: ['USDC'] },
      { 'idempotency-key': randomUUID() },
    );
    intentIds.push(intent.id);
    if (i === 0) fixture.ref_code = intent.ref_code;
  }
  for (let i = 0; i < 60; i++) {
    await post(`${baseUrl}/connect/v1/test/payment-intents/${intentIds[0]}/simulate-deposit`, partnerKey, { amount: '0.01' });
  }
  fixture.intent_id = intentIds[0]!;
  fixture.intent_ids = intentIds;
}

/**
 * What the payout pairs spend: at 0.01 USDC plus a 0.003 USD fee a pair, 500,000,000 USDC outlasts any run by
 * far (the most one deposit may be is 1,000,000,000).
 */
async function fundTreasury({ baseUrl, partnerKey }: FixtureContext): Promise<void> {
  const address = await createAddress(baseUrl, partnerKey, { asset: 'USDC', network: 'solana' });
  await post(`${baseUrl}/connect/v1/test/addresses/${address.id}/simulate-deposit`, partnerKey, { amount: '500000000' });
}

const DEFAULT_PROFILES = 1_000;
const profilesOf = (context: FixtureContext) => context.profiles ?? DEFAULT_PROFILES;
const HOLDINGS = [
  { asset: 'USDC', network: 'solana', amount: '125.5' },
  { asset: 'USDT', network: 'tron', amount: '80.25' },
  { asset: 'ETH', network: 'base', amount: '0.05' },
] as const;
const IN_FLIGHT = 16;

/**
 * What the tenant-wide balances scenario reads, in an organization of its own (so the other scenarios' data
 * does not change its answer): --profiles end users, each with one address per holding and one deposit to each,
 * made through the API so that the rows are the service's own.
 */
async function createProfiles(context: FixtureContext): Promise<void> {
  const { baseUrl, adminToken, fixture } = context;
  const profiles = profilesOf(context);
  const key = await createPartnerKey(baseUrl, adminToken, `Benchmark (${profiles.toLocaleString('en')} profiles)`);
  const tasks: (() => Promise<void>)[] = [];
  for (let user = 0; user < profiles; user++) {
    const externalRef = `bench-user-${String(user).padStart(4, '0')}`;
    for (const { asset, network, amount } of HOLDINGS) {
      tasks.push(async () => {
        const address = await createAddress(baseUrl, key, { asset, network, external_ref: externalRef });
        await post(`${baseUrl}/connect/v1/test/addresses/${address.id}/simulate-deposit`, key, { amount });
      });
    }
  }
  await inParallel(tasks, IN_FLIGHT);

  // The scenario is worth little if the fixture is not what its name says.
  const balance = await get<{ profiles_count: number; balances: { asset: string; network: string; amount: string }[] }>(
    `${baseUrl}/connect/v1/balances`,
    key,
  );
  const expected = HOLDINGS.map((h) => `${h.asset}/${h.network}`).sort();
  const held = balance.balances.map((b) => `${b.asset}/${b.network}`).sort();
  if (balance.profiles_count !== profiles || held.join() !== expected.join()) {
    throw new Error(`the profiles fixture holds ${balance.profiles_count} profiles and ${held.join(', ')}`);
  }
  fixture.profiles_key = key;
}

function createAddress(baseUrl: string, key: string, body: Record<string, string>): Promise<{ id: string }> {
  return post<{ id: string }>(`${baseUrl}/connect/v1/addresses`, key, body, { 'idempotency-key': randomUUID() });
}

/** Runs the tasks with at most `limit` of them at once; the first failure fails the lot. */
async function inParallel(tasks: readonly (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}

export function post<T>(url: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  return send<T>('POST', url, token, body, headers);
}

/**
 * A request with a bearer token and a JSON body (none when `body` is undefined); any answer but a 2xx throws,
 * with the answer in the message.
 */
export async function send<T>(
  method: 'POST' | 'PUT',
  url: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const hasBody = body !== undefined;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(hasBody ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(hasBody ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

async function get<T>(url: string, token: string): Promise<T> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
