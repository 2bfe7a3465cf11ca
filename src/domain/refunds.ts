import { DomainError } from './errors.js';
import { Decimal, ZERO } from './money.js';
import type { PayoutStatus, RefundNetworkFee } from './payouts.js';

/** The finest unit any catalog asset has: an amount converted into the intent's currency is counted down to it. */
const COUNTED_DECIMALS = 18;

/** A refund as the store reads it: a payout row of kind refund (docs/refunds.md). */
export interface RefundRecord {
  id: string;
  payment_intent_id: string | null;
  quote_id: string;
  status: PayoutStatus;
  asset: string;
  network: string;
  /** What the payer receives. */
  amount: string;
  fee: string;
  /** What leaves the owner's balance. */
  user_sends: string;
  refund_amount: string | null;
  refund_amount_counted: string | null;
  refund_network_fee: RefundNetworkFee | null;
  refund_reason: string | null;
  destination: string;
  tx_hash: string | null;
  failure_reason: string | null;
  external_ref: string | null;
  created_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
}

/**
 * The money an intent received on one asset and network, and what was refunded there. `counted` is what the
 * credits that were counted toward the intent counted, in its currency, and `countedBasis` what those credits
 * were in the asset: their ratio is the price the intent counted this pair's money at.
 */
export interface ReceivedPair {
  asset: string;
  network: string;
  received: Decimal;
  countedBasis: Decimal;
  counted: Decimal;
  /** Refund amounts (in the asset) of this pair's refunds that did not fail. */
  refunded: Decimal;
  /** The same refunds' amounts in the intent's currency. */
  refundedCounted: Decimal;
}

/** What may still be refunded on the pair: what it received less what its refunds not failed took. */
export const refundableOn = (pair: ReceivedPair) => Decimal.max(0, pair.received.minus(pair.refunded));

/**
 * An amount of the pair's asset in the intent's currency, at the ratio its credits were counted at (1:1 for
 * the intent's own asset, and for assets pegged to it, as they were counted); rounded down. Money that was never
 * counted (no fresh price when it arrived) counts 0: it never raised `amount_received` either. So the pair's
 * refunds together never count more than its credits counted, whatever part of the money was never counted.
 */
export function countedAmount(pair: ReceivedPair, amount: Decimal): Decimal {
  if (pair.countedBasis.isZero()) return new Decimal(0);
  const left = Decimal.max(0, pair.counted.minus(pair.refundedCounted));
  const atRatio = pair.counted.eq(pair.countedBasis) ? amount : amount.times(pair.counted).dividedBy(pair.countedBasis).toDecimalPlaces(COUNTED_DECIMALS, Decimal.ROUND_DOWN);
  return Decimal.min(left, atRatio);
}

/** What an intent received beyond its amount and no refund has given back yet, in its currency. */
export const unrefundedExcess = (intent: { amount: Decimal; received: Decimal; refunded: Decimal }) =>
  Decimal.max(0, intent.received.minus(intent.amount).minus(intent.refunded));

/**
 * The overpaid part still unrefunded, in the pair's asset (`amount`), and what refunding it counts (`counted`): the
 * excess in the intent's currency, converted back at the pair's ratio and rounded down to the asset's decimals,
 * never more than the pair's refundable. A refund of the whole excess counts as the whole excess, so rounding to
 * the asset's decimals never leaves a sliver of it open; one the pair cannot cover counts what it pays.
 */
export function excessOn(pair: ReceivedPair, intent: { amount: Decimal; received: Decimal; refunded: Decimal }, decimals: number): { amount: Decimal; counted: Decimal } {
  const excess = unrefundedExcess(intent);
  const none = { amount: new Decimal(0), counted: new Decimal(0) };
  if (excess.isZero() || pair.counted.isZero()) return none;
  const inAsset = (pair.counted.eq(pair.countedBasis) ? excess : excess.times(pair.countedBasis).dividedBy(pair.counted)).toDecimalPlaces(decimals, Decimal.ROUND_DOWN);
  const refundable = refundableOn(pair);
  if (inAsset.isZero()) return none;
  return inAsset.lte(refundable) ? { amount: inAsset, counted: excess } : { amount: refundable, counted: countedAmount(pair, refundable) };
}

/**
 * What the payer receives and what the owner's balance pays for a refund of `amount` with a network fee of `fee`:
 * 'deducted' takes the fee from the refund, 'on_top' charges it to the balance beside it.
 */
export function refundSplit(amount: Decimal, fee: Decimal, networkFee: RefundNetworkFee): { recipientGets: Decimal; ownerPays: Decimal } {
  if (networkFee === 'on_top') return { recipientGets: amount, ownerPays: amount.plus(fee) };
  if (fee.gte(amount)) {
    throw new DomainError(
      'invalid_request',
      `The network fee (${fee.toFixed()}) is not less than the refund (${amount.toFixed()}): nothing would reach the payer. Refund more, or use network_fee "on_top".`,
      'network_fee',
    );
  }
  return { recipientGets: amount.minus(fee), ownerPays: amount };
}

/** The refund resource (and its events' data): amounts as decimal strings, times in ISO 8601. */
export function refundObject(r: RefundRecord) {
  return {
    id: r.id,
    object: 'refund' as const,
    payment_intent_id: r.payment_intent_id!,
    status: r.status,
    asset: r.asset,
    network: r.network,
    amount: new Decimal(r.refund_amount!).toFixed(),
    amount_counted: new Decimal(r.refund_amount_counted!).toFixed(),
    network_fee: r.refund_network_fee!,
    fee: new Decimal(r.fee).toFixed(),
    recipient_gets: new Decimal(r.amount).toFixed(),
    owner_pays: new Decimal(r.user_sends).toFixed(),
    destination: r.destination,
    reason: r.refund_reason,
    tx_hash: r.tx_hash,
    failure_reason: r.failure_reason,
    external_ref: r.external_ref,
    quote_id: r.quote_id,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
    failed_at: r.failed_at?.toISOString() ?? null,
  };
}

/** What the intent's envelope shows as `amount_refunded`: the counted amounts of its refunds that did not fail. */
export const amountRefunded = (refunds: readonly RefundRecord[]) =>
  refunds.filter((r) => r.status !== 'failed').reduce((sum, r) => sum.plus(r.refund_amount_counted!), ZERO);
