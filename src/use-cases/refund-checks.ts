import { DomainError } from '../domain/errors.js';
import { Decimal } from '../domain/money.js';
import { effectiveStatus } from '../domain/payment-intents.js';
import { refundableOn, unrefundedExcess } from '../domain/refunds.js';
import type { Sql } from '../store/database.js';
import { findIntent } from '../store/payment-intents.js';
import type { QuoteRow } from '../store/payouts.js';
import { receivedPairs, refundedCounted } from '../store/refunds.js';
import type { Tenant } from '../domain/tenancy.js';
import { expireIntent } from './expiry.js';

/**
 * Executing a refund quote, in the execution's transaction: the intent's row is locked (after the quote, before
 * any ledger account: the order a deposit to it, and a reversal of one, keep too), so executions of refunds of one
 * intent, credits to it and reversals take turns; what its pair can still refund is then read and must cover the
 * quote, and a refund of the overpayment must still find it unrefunded. A quote made before another refund was
 * executed may no longer fit. An intent past due that the sweeper has not reached is expired first, so its
 * `payment_intent.expired` comes before `refund.created`, as it does before a credit.
 */
export async function checkRefundable(tx: Sql, tenant: Tenant, quote: QuoteRow, now: Date): Promise<void> {
  const intentId = quote.payment_intent_id!;
  const locked = await findIntent(tx, tenant, intentId, true);
  // The quote names an intent of its own tenant (a foreign key, and the quote was made through it).
  if (!locked) throw new Error(`refund quote ${quote.id} names intent ${intentId}, which its tenant does not own`);
  const intent = effectiveStatus(locked, now) === 'expired' && locked.status === 'pending' ? await expireIntent(tx, locked, now) : locked;
  const pair = (await receivedPairs(tx, tenant, intentId)).find((p) => p.asset === quote.asset && p.network === quote.network);
  const refundable = pair ? refundableOn(pair) : new Decimal(0);
  if (new Decimal(quote.refund_amount!).gt(refundable)) {
    throw new DomainError(
      'refund_exceeds_refundable',
      `This refund of ${quote.refund_amount} ${quote.asset} on ${quote.network} is more than the payment intent can still refund there (${refundable.toFixed()}): other refunds were executed since the quote. Request a new quote.`,
      'quote_id',
    );
  }
  if (quote.refund_portion !== 'excess') return;
  const excess = unrefundedExcess({ amount: new Decimal(intent.amount), received: new Decimal(intent.amount_received), refunded: await refundedCounted(tx, intentId) });
  if (new Decimal(quote.refund_amount_counted!).gt(excess)) {
    throw new DomainError(
      'refund_exceeds_refundable',
      `This refund of the overpayment counts ${quote.refund_amount_counted} ${intent.currency}, more than the overpayment still unrefunded (${excess.toFixed()}): other refunds were executed since the quote. Request a new quote.`,
      'quote_id',
    );
  }
}
