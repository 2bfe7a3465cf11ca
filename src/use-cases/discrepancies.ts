import type { Caller } from '../domain/access.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { acceptanceOf, discrepancyOf, intentMoney, type Discrepancy } from '../domain/discrepancies.js';
import { Decimal } from '../domain/money.js';
import { effectiveStatus } from '../domain/payment-intents.js';
import type { Sql } from '../store/database.js';
import { findIntentWithAddresses, recordAcceptance } from '../store/payment-intents.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import { recordEvent } from './events.js';
import { expireIntent } from './expiry.js';
import type { Answer, Once, Operations } from './once.js';
import { checkPaymentIntentId, type IntentView } from './payment-intents.js';

/** The intent's discrepancy as of `now` (docs/money-in.md, "Discrepancies"). */
export const intentDiscrepancy = (view: IntentView, now: Date): Discrepancy | null => discrepancyOf(intentMoney(view, now));

/**
 * The partner keeps an intent's over- or underpayment as it is: the decision is recorded on the intent with a
 * `payment_intent.discrepancy_accepted` event, and no state of the contract changes. Only an open discrepancy can be
 * accepted; accepting one already accepted or refunded is 409 invalid_state, so a retry without the same
 * Idempotency-Key cannot write a second event.
 */
function acceptDiscrepancy(clock: Clock, tenant: Tenant, id: string, note: string | null): (tx: Sql) => Promise<IntentView> {
  checkPaymentIntentId(id, 'payment_intent_id');
  return async (tx) => {
    const locked = await findIntentWithAddresses(tx, tenant, id, true);
    if (!locked) throw notFound('payment intent', 'payment_intent_id');
    const now = clock.now();
    // Past due but not swept yet: persisted first, so the expiry event comes before the decision.
    const view = effectiveStatus(locked, now) === 'expired' && locked.status === 'pending' ? { ...locked, ...(await expireIntent(tx, locked, now)) } : locked;
    const discrepancy = intentDiscrepancy(view, now);
    if (discrepancy?.status !== 'open') {
      const why = discrepancy === null ? 'has no discrepancy (it is not overpaid, nor expired with money received)' : `has a discrepancy already ${discrepancy.status}`;
      throw new DomainError('invalid_state', `This payment intent ${why}; there is nothing to accept.`, 'payment_intent_id');
    }
    const acceptance = acceptanceOf(discrepancy, note, now);
    await recordAcceptance(tx, tenant, id, acceptance);
    await recordEvent(
      tx,
      tenant,
      'payment_intent.discrepancy_accepted',
      {
        ref_code: view.ref_code,
        type: acceptance.type,
        // Decimal strings, as in payment_intent.expired: exact.
        amount: acceptance.amount,
        currency: view.currency,
        amount_received: new Decimal(view.amount_received).toFixed(),
        status: effectiveStatus(view, now),
        note,
        metadata: view.metadata ?? {},
      },
      { id, kind: 'payment_intent' },
      now,
    );
    return { ...view, discrepancy_acceptance: acceptance };
  };
}

/** Discrepancies the partner decides on (docs/money-in.md, "Discrepancies"). */
export class Discrepancies {
  constructor(
    private readonly clock: Clock,
    private readonly operations: Operations,
  ) {}

  /** POST /payment-intents/{id}/accept-discrepancy, once per idempotency key. */
  accept(caller: Caller, id: string, note: string | null, once: Once<IntentView>): Promise<Answer> {
    return this.operations.once(once, async () => {
      const accept = acceptDiscrepancy(this.clock, tenantOf(caller), id, note);
      return async (tx) => ({ value: await accept(tx) });
    });
  }
}
