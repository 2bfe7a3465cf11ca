import { DomainError } from '../domain/errors.js';
import { Decimal } from '../domain/money.js';
import { refundableOn } from '../domain/refunds.js';
import type { Sql } from '../store/database.js';
import { findIntent } from '../store/payment-intents.js';
import type { QuoteRow } from '../store/payouts.js';
import { receivedPairs } from '../store/refunds.js';
import type { Tenant } from '../store/tenancy.js';

/**
 * Executing a refund quote, in the execution's transaction: the intent's row is locked (after the quote, before
 * any ledger account: the order a deposit to it keeps too), so executions of refunds of one intent, and credits to
 * it, take turns; what its pair can still refund is then read and must cover the quote. A quote made before
 * another refund was executed may no longer fit.
 */
export async function checkRefundable(tx: Sql, tenant: Tenant, quote: QuoteRow): Promise<void> {
  const intentId = quote.payment_intent_id!;
  // The quote names an intent of its own tenant (a foreign key, and the quote was made through it).
  if (!(await findIntent(tx, tenant, intentId, true))) throw new Error(`refund quote ${quote.id} names intent ${intentId}, which its tenant does not own`);
  const pair = (await receivedPairs(tx, tenant, intentId)).find((p) => p.asset === quote.asset && p.network === quote.network);
  const refundable = pair ? refundableOn(pair) : new Decimal(0);
  if (new Decimal(quote.refund_amount!).gt(refundable)) {
    throw new DomainError(
      'refund_exceeds_refundable',
      `This refund of ${quote.refund_amount} ${quote.asset} on ${quote.network} is more than the payment intent can still refund there (${refundable.toFixed()}): other refunds were executed since the quote. Request a new quote.`,
      'quote_id',
    );
  }
}
