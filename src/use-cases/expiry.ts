import type { Clock } from '../domain/clock.js';
import { toDecimalString } from '../domain/money.js';
import type { Database, Sql } from '../store/database.js';
import { claimDueForExpiry, markExpired, type IntentRow } from '../store/payment-intents.js';
import { recordEvent } from './events.js';

/** Persists the expiry of a locked, pending, past-due intent and writes its one `payment_intent.expired` event. */
export async function expireIntent(tx: Sql, intent: IntentRow, now: Date): Promise<IntentRow> {
  const tenant = { organizationId: intent.organization_id, mode: intent.mode };
  const expired = await markExpired(tx, tenant, intent.id);
  await recordEvent(
    tx,
    tenant,
    'payment_intent.expired',
    {
      ref_code: intent.ref_code,
      // Decimal strings: the contract leaves this event's types open, and strings are exact (docs/money-in.md).
      amount: toDecimalString(intent.amount),
      currency: intent.currency,
      status: 'expired',
      amount_received: toDecimalString(intent.amount_received),
      expires_at: intent.expires_at.toISOString(),
      metadata: intent.metadata ?? {},
    },
    { id: intent.id, kind: 'payment_intent' },
    now,
  );
  return expired;
}

/**
 * One sweep: expires up to `batchSize` due intents in one transaction. Rows are claimed with SKIP LOCKED, so
 * several instances sweep side by side, and an intent a deposit is crediting right now is left for later.
 */
export async function expireDueIntents(db: Database, clock: Clock, batchSize = 500): Promise<number> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const due = await claimDueForExpiry(tx, now, batchSize);
    for (const intent of due) await expireIntent(tx, intent, now);
    return due.length;
  });
}
