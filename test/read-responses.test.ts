import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from './support/app.js';
import { ManualClock } from './support/clock.js';
import { createIntent, createTenant, simulate, type IntentEnvelope } from './support/partner.js';
import { jsonbText } from '../src/store/jsonb-text.js';

/*
 * Issue 24: reads got faster without changing a byte of what they answer. The answers of the read routes to a
 * fixed history (clock moved by hand, so every timestamp is the same from one run to the next) are compared
 * with the bytes recorded before the fast paths existed (test/golden/read-responses.json). Only what is random
 * in the same history is replaced, by placeholders numbered in order of first appearance: ids, ref codes,
 * addresses (derived from a seed made per database), simulated senders and transaction hashes, cursors. Key order, number and time formats, spacing and escaping stay as sent.
 * `RECORD_GOLDEN=1 npx vitest run test/read-responses.test.ts` writes the file anew (only ever at a commit whose
 * answers are known good).
 */

const GOLDEN = path.join(import.meta.dirname, 'golden', 'read-responses.json');
const START = new Date('2026-01-02T03:04:05.678Z');
const SOLANA_PAYER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

/** Random values in a history, each replaced by `<kind n>` (the same value always by the same placeholder). */
const RANDOM: { kind: string; pattern: RegExp }[] = [
  { kind: 'cursor', pattern: /(?<="cursor":")[^"]+(?=")/g },
  { kind: 'uuid', pattern: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g },
  { kind: 'ulid', pattern: /(?<=[a-z]_)[0-9A-HJKMNP-TV-Z]{26}\b/g },
  { kind: 'quote', pattern: /(?<=quote_)[0-9a-f]{32}\b/g },
  { kind: 'ref', pattern: /(?<="ref_code":")[0-9A-Z]+(?=")/g },
  // Addresses derive from a seed made per database; simulated senders and hashes are random.
  { kind: 'evm', pattern: /\b0x[0-9a-fA-F]{40}\b/g },
  { kind: 'base58', pattern: /\b[1-9A-HJ-NP-Za-km-z]{32,88}\b/g },
];

class Placeholders {
  private readonly seen = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  apply(body: string): string {
    return RANDOM.reduce(
      (text, { kind, pattern }) =>
        text.replace(pattern, (value) => {
          let name = this.seen.get(value);
          if (name === undefined) {
            const n = (this.counts.get(kind) ?? 0) + 1;
            this.counts.set(kind, n);
            this.seen.set(value, (name = `<${kind} ${n}>`));
          }
          return name;
        }),
      body,
    );
  }
}

let t: TestApp;
let clock: ManualClock;
let tenant: Tenant;
let paid: IntentEnvelope;
let fresh: IntentEnvelope;
let refundId: string;

async function post(key: string, url: string, body: unknown, idempotent = true) {
  clock.advance(1_000);
  const res = await t.call(key, 'POST', url, { body, ...(idempotent ? { idempotencyKey: randomUUID() } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json() as Record<string, unknown> & { id: string };
}

beforeAll(async () => {
  clock = new ManualClock(START);
  t = await startTestApp({}, undefined, { clock });
  tenant = await createTenant(t);
  paid = await createIntent(t, tenant.key, {
    amount: '25.5',
    currencies: ['USDC', 'USDT'],
    external_ref: 'user-1',
    description: 'Order "A-1" — café ✓',
    metadata: { order: 'A-1', b: 1, a: 1.5, ok: true, none: null, emoji: 'é ✓ \u2028 "q" \\' },
  });
  clock.advance(1_000);
  await simulate(t, tenant.key, paid.id, { amount: '10', currency: 'USDC', network: 'solana' });
  clock.advance(1_000);
  await simulate(t, tenant.key, paid.id, { amount: '20.25', currency: 'USDC', network: 'solana' });
  const quote = await post(tenant.key, `/payment-intents/${paid.id}/refunds/quote`, { portion: 'excess', network_fee: 'deducted', destination: SOLANA_PAYER, reason: 'overpaid' });
  refundId = (await post(tenant.key, '/refunds', { quote_id: quote.quote_id })).id;
  await post(tenant.key, `/test/refunds/${refundId}/simulate`, { outcome: 'completed' }, false);
  clock.advance(1_000);
  fresh = await createIntent(t, tenant.key, { amount: '3', currencies: ['USDC', 'ETH'] });
  clock.advance(1_000);
});
afterAll(() => t.close());

/** The answers of every read this issue made faster, in a fixed order (placeholders are numbered across them). */
async function answers(): Promise<Record<string, string>> {
  const placeholders = new Placeholders();
  const read = async (url: string) => {
    const res = await t.call(tenant.key, 'GET', url);
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const out: Record<string, string> = {};
  const record = async (name: string, url: string) => {
    const body = await read(url);
    out[name] = placeholders.apply(body);
    return body;
  };
  await record('GET /health', '/health');
  await record('GET /payment-intents/{id} (paid, overpaid, refunded)', `/payment-intents/${paid.id}`);
  await record('GET /payment-intents/{id} (new)', `/payment-intents/${fresh.id}`);
  await record('GET /payment-intents', '/payment-intents');
  const events = await record('GET /events', '/events');
  const first = await record('GET /events?limit=3', '/events?limit=3');
  const { cursor } = JSON.parse(first) as { cursor: string };
  await record('GET /events?limit=3 (second page)', `/events?limit=3&cursor=${encodeURIComponent(cursor)}`);
  const eventIds = (JSON.parse(events) as { data: { id: string }[] }).data.map((e) => e.id);
  for (const [i, id] of eventIds.entries()) await record(`GET /events/{id} (newest ${i + 1})`, `/events/${id}`);
  await record('GET /balances', '/balances');
  await record('GET /balances?external_ref=user-1', '/balances?external_ref=user-1');
  await record('GET /transactions', '/transactions');
  await record('GET /refunds/{id}', `/refunds/${refundId}`);
  return out;
}

function expectAsRecorded(now: Record<string, string>) {
  const before = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
  expect(Object.keys(now)).toEqual(Object.keys(before));
  for (const name of Object.keys(before)) expect(now[name], name).toBe(before[name]);
}

describe('read answers (issue 24: faster reads, the same bytes)', () => {
  it('every read answers byte for byte what it answered before the fast paths, for the same history', async () => {
    const now = await answers();
    if (process.env.RECORD_GOLDEN === '1') {
      fs.mkdirSync(path.dirname(GOLDEN), { recursive: true });
      fs.writeFileSync(GOLDEN, `${JSON.stringify(now, null, 2)}\n`);
    }
    expectAsRecorded(now);
  });

  it('events written before their data was stored as text (migration 029) answer the same bytes, from the jsonb', async () => {
    await t.db.query('UPDATE events SET data_text = NULL');
    expectAsRecorded(await answers());
  });

  it("an event's stored text is what its jsonb gives read back and written with JSON.stringify, whatever its keys", async () => {
    const values = [
      { b: 1, a: 2, ab: 3, aa: 4, é: 5, z: 6, '10': 7, '2': 8, '': 9 },
      { nested: { zz: [1, { y: 2, x: null }], a: 'x' }, list: [{ bb: true, a: false }], n: -0.5, big: 1e21, tiny: 1e-7 },
      { 'ключ': 'значение', key: '\u2028 "q" \\ \n \t ✓', 'κ': 'é', k: 'ok' },
      { amount: '10.50', metadata: null, deep: { a: { b: { c: { d: [[], {}] } } } } },
    ];
    for (const value of values) {
      const [row] = await t.db.query<{ value: unknown }>('SELECT $1::jsonb AS value', [JSON.stringify(value)]);
      expect(jsonbText(value)).toBe(JSON.stringify(row!.value));
    }
  });
});
