import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { expect } from 'vitest';
import type { Payout, PayoutQuote } from '../../src/http/resources/payout.js';
import type { TestApp } from './app.js';
import { json } from './partner.js';

export type QuoteObject = Static<typeof PayoutQuote>;
export type PayoutObject = Static<typeof Payout>;

/** A valid Solana address, where USDC payouts of these helpers go. */
export const SOLANA_DESTINATION = 'So11111111111111111111111111111111111111112';
/** A valid EVM address (EIP-55 checksummed). */
export const EVM_DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A USDC quote to SOLANA_DESTINATION (`body` adds or overrides fields), which must be issued. */
export async function quotePayout(t: TestApp, key: string, body: Record<string, unknown>): Promise<QuoteObject> {
  const res = await t.call(key, 'POST', '/payouts/quote', { body: { asset: 'USDC', destination: SOLANA_DESTINATION, ...body }, idempotencyKey: randomUUID() });
  expect(res.statusCode, res.body).toBe(201);
  return json<QuoteObject>(res);
}

/** POST /payouts of a quote, with a fresh Idempotency-Key. */
export const executePayout = (t: TestApp, key: string, quoteId: string) =>
  t.call(key, 'POST', '/payouts', { body: { quote_id: quoteId }, idempotencyKey: randomUUID() });

/** POST /test/payouts/{id}/simulate: drives a sandbox payout to `outcome`. */
export const simulatePayout = (t: TestApp, key: string, id: string, outcome: 'completed' | 'failed') =>
  t.call(key, 'POST', `/test/payouts/${id}/simulate`, { body: { outcome } });
