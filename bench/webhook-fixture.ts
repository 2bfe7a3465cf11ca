import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { base58 } from '@scure/base';
import { monotonicFactory } from 'ulid';
import { withClient } from './postgres.js';

/** Rows per INSERT statement. */
const BATCH = 1_000;
const REF_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTUVWXYZ';

export interface EventFixture {
  /** Per intent: the payment_received event's id, then the completed one's. */
  pairs: [string, string][];
  /** The range of the events' created_at, for the bulk replay. */
  from: Date;
  to: Date;
  seconds: number;
}

/**
 * A fixture, not the service's own writing: `count` events inserted straight into the events table with SQL,
 * in batches, as pairs shaped like a paid intent's (payment_intent.payment_received, then
 * payment_intent.completed, sharing related_to and created_at, with the data the sandbox writes), the pairs
 * dealt round-robin over the organizations. No delivery row is written: a bulk replay with state `none`
 * queues one per event.
 */
export async function insertEventFixture(databaseUrl: string, organizationIds: readonly string[], count: number): Promise<EventFixture> {
  const started = performance.now();
  const nextUlid = monotonicFactory();
  const pairs: [string, string][] = [];
  const from = new Date();
  let to = from;
  await withClient(databaseUrl, async (client) => {
    for (let first = 0; first < count / 2; first += BATCH / 2) {
      const rows: { id: string; organization: string; type: string; data: string; relatedTo: string; createdAt: Date }[] = [];
      for (let pair = first; pair < Math.min(first + BATCH / 2, count / 2); pair++) {
        const createdAt = new Date();
        const [received, completed] = [`evt_${nextUlid(createdAt.getTime())}`, `evt_${nextUlid(createdAt.getTime())}`];
        const organization = organizationIds[pair % organizationIds.length]!;
        const relatedTo = randomUUID();
        const data = paymentData();
        rows.push({ id: received, organization, type: 'payment_intent.payment_received', data: JSON.stringify(data.received), relatedTo, createdAt });
        rows.push({ id: completed, organization, type: 'payment_intent.completed', data: JSON.stringify(data.completed), relatedTo, createdAt });
        pairs.push([received, completed]);
        to = createdAt;
      }
      // ORDER BY the input position: each pair's received event draws the smaller seq, as in a real deposit.
      await client.query(
        `INSERT INTO events (id, organization_id, mode, type, api_version, data, related_to, related_to_kind, created_at)
         SELECT id, organization_id, 'test', type, 'v1', data::jsonb, related_to, 'payment_intent', created_at
         FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::uuid[], $6::timestamptz[])
           WITH ORDINALITY AS f(id, organization_id, type, data, related_to, created_at, position)
         ORDER BY position`,
        [
          rows.map((r) => r.id),
          rows.map((r) => r.organization),
          rows.map((r) => r.type),
          rows.map((r) => r.data),
          rows.map((r) => r.relatedTo),
          rows.map((r) => r.createdAt),
        ],
      );
    }
  });
  return { pairs, from, to, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** The data of a simulated full deposit of 10 USDC on Solana, as the sandbox writes it for both events. */
function paymentData(): { received: Record<string, unknown>; completed: Record<string, unknown> } {
  const refCode = Array.from({ length: 5 }, () => REF_CODE_ALPHABET[randomInt(REF_CODE_ALPHABET.length)]).join('');
  const common = {
    hash: base58.encode(randomBytes(64)),
    amount: 10,
    status: 'completed',
    network: 'solana',
    currency: 'USDC',
    metadata: {},
    ref_code: refCode,
    address_sender: `${base58.encode(randomBytes(32))}:simulator`,
    address_receiver: base58.encode(randomBytes(32)),
  };
  return {
    received: { ...common, amount_counted: '10', amount_received: 10, partial_payment: false, amount_remaining: 0 },
    completed: common,
  };
}
