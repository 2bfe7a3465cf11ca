import { Decimal, ZERO } from './money.js';
import { completionTolerance, effectiveStatus, type IntentStatus } from './payment-intents.js';
import { amountRefunded, type RefundRecord } from './refunds.js';

/**
 * What went wrong with an intent's money, once its outcome is settled (docs/money-in.md, "Discrepancies"):
 * - overpaid: completed, with more received than asked (`amount` is the excess);
 * - underpaid: expired with a partial payment (`amount` is what is missing);
 * - paid_late: expired, yet paid in full, at least in part after expiry (`amount` is what was received).
 * A pending intent has none yet: more money may still come.
 */
export type DiscrepancyType = 'overpaid' | 'underpaid' | 'paid_late';

/** open: to decide; accepted: the partner keeps it as it is; refunded: refunds (not failed) cover it. */
export type DiscrepancyStatus = 'open' | 'accepted' | 'refunded';

export interface Acceptance {
  type: DiscrepancyType;
  /** The discrepancy's amount when it was accepted, a decimal string. */
  amount: string;
  note: string | null;
  accepted_at: string;
}

export interface Discrepancy {
  type: DiscrepancyType;
  amount: Decimal;
  status: DiscrepancyStatus;
  acceptance: Acceptance | null;
}

export interface IntentMoney {
  /** The status as of now (expiry applied). */
  status: IntentStatus;
  amount: Decimal;
  received: Decimal;
  /** Refunds not failed, counted in the intent's currency. */
  refunded: Decimal;
  acceptance: Acceptance | null;
}

/** The fields of a payment intent (with its refunds) its money is computed from. */
export interface IntentFigures {
  status: IntentStatus;
  expires_at: Date;
  amount: string;
  amount_received: string;
  refunds: readonly RefundRecord[];
  discrepancy_acceptance: Acceptance | null;
}

/** The intent's money as of `now`: what its discrepancy and its envelope are computed from. */
export function intentMoney(intent: IntentFigures, now: Date): IntentMoney {
  return {
    status: effectiveStatus(intent, now),
    amount: new Decimal(intent.amount),
    received: new Decimal(intent.amount_received),
    refunded: amountRefunded(intent.refunds),
    acceptance: intent.discrepancy_acceptance,
  };
}

export function discrepancyOf(intent: IntentMoney): Discrepancy | null {
  const found = find(intent);
  if (found === null) return null;
  const [type, amount] = found;
  // What a refund must cover: the excess of an overpayment; everything received for an order that never completed.
  const toReturn = type === 'overpaid' ? amount : intent.received;
  // An acceptance holds for the discrepancy it saw: a later credit that changes it reopens the decision.
  const accepted = intent.acceptance !== null && intent.acceptance.type === type && amount.eq(intent.acceptance.amount);
  const status: DiscrepancyStatus = intent.refunded.gte(toReturn) ? 'refunded' : accepted ? 'accepted' : 'open';
  return { type, amount, status, acceptance: accepted ? intent.acceptance : null };
}

function find({ status, amount, received }: IntentMoney): [DiscrepancyType, Decimal] | null {
  if (status === 'completed') return received.gt(amount) ? ['overpaid', received.minus(amount)] : null;
  if (status !== 'expired' || received.lte(ZERO)) return null;
  return received.gte(amount.minus(completionTolerance(amount))) ? ['paid_late', received] : ['underpaid', amount.minus(received)];
}

export const acceptanceOf = (discrepancy: Discrepancy, note: string | null, now: Date): Acceptance => ({
  type: discrepancy.type,
  amount: discrepancy.amount.toFixed(),
  note,
  accepted_at: now.toISOString(),
});
