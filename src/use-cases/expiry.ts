import { toNumber } from '../domain/money.js';
import type { Database, Sql } from '../store/database.js';
import { claimDueForExpiry, markExpired, type IntentRow } from '../store/payment-intents.js';
import { recordEvent } from './events.js';

/** Persists the expiry of a locked, pending, past-due intent and writes its one `payment_intent.expired` event. */
export async function expireIntent(tx: Sql, intent: IntentRow): Promise<IntentRow> {
  const expired = await markExpired(tx, intent.id);
  await recordEvent(
    tx,
    { organizationId: intent.organization_id, mode: intent.mode },
    'payment_intent.expired',
    {
      ref_code: intent.ref_code,
      amount: toNumber(intent.amount),
      currency: intent.currency,
      status: 'expired',
      amount_received: toNumber(intent.amount_received),
      expires_at: intent.expires_at.toISOString(),
      metadata: intent.metadata ?? {},
    },
    { id: intent.id, kind: 'payment_intent' },
  );
  return expired;
}

/**
 * One sweep: expires up to `batchSize` due intents in one transaction. Rows are claimed with SKIP LOCKED, so
 * several instances sweep side by side, and an intent a deposit is crediting right now is left for later.
 */
export async function expireDueIntents(db: Database, batchSize = 500): Promise<number> {
  return db.transaction(async (tx) => {
    const due = await claimDueForExpiry(tx, batchSize);
    for (const intent of due) await expireIntent(tx, intent);
    return due.length;
  });
}
