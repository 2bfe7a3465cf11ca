import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import { refundObject } from '../domain/refunds.js';
import type { Tenant } from '../domain/tenancy.js';
import type { Settlement } from '../outbound/engine.js';
import type { Sql } from '../store/database.js';
import { releaseFunds, settleFunds, type Owner } from '../store/ledger.js';
import { updatePayoutStatus, type PayoutRow } from '../store/payouts.js';
import { settleTransaction } from '../store/transactions.js';
import { recordEvent } from './events.js';

/** The balance the payout's funds were reserved from. */
const ownerOf = (payout: PayoutRow): Owner => ({ profileId: payout.profile_id, asset: payout.asset, network: payout.network });

/** A ledger movement of the payout, named by its step (one of each per payout: the ledger refuses a second). */
const movement = (payout: PayoutRow, step: 'settle' | 'release', now: Date) => ({ cause: `payout:${payout.id}:${step}`, transactionId: payout.transaction_id, createdAt: now });

const REFUND_EVENTS = { 'payout.created': 'refund.created', 'payout.completed': 'refund.completed', 'payout.failed': 'refund.failed' } as const;

/**
 * How a payout (or a refund) ends, in the caller's transaction: completion settles the reserved funds (reserved →
 * world, fee → fees), failure releases them (reserved → available); either way its transaction row and its event
 * are written beside the ledger's entries. The outbound engine calls it for live outcomes, the sandbox for its own.
 */
export class PayoutSettlement implements Settlement {
  constructor(private readonly clock: Clock) {}

  async complete(tx: Sql, tenant: Tenant, payout: PayoutRow, txHash: string): Promise<PayoutRow> {
    const now = this.clock.now();
    await settleFunds(tx, tenant, ownerOf(payout), { amount: new Decimal(payout.amount), fee: new Decimal(payout.fee) }, movement(payout, 'settle', now));
    await settleTransaction(tx, tenant, payout.transaction_id, { status: 'confirmed', txHash }, now);
    const completed = await updatePayoutStatus(tx, tenant, payout.id, { status: 'completed', txHash }, now);
    await recordPayoutEvent(tx, tenant, 'payout.completed', completed, now);
    return completed;
  }

  async fail(tx: Sql, tenant: Tenant, payout: PayoutRow, reason: string): Promise<PayoutRow> {
    const now = this.clock.now();
    await releaseFunds(tx, tenant, ownerOf(payout), new Decimal(payout.user_sends), movement(payout, 'release', now));
    await settleTransaction(tx, tenant, payout.transaction_id, { status: 'failed', txHash: null }, now);
    const failed = await updatePayoutStatus(tx, tenant, payout.id, { status: 'failed', failureReason: reason }, now);
    await recordPayoutEvent(tx, tenant, 'payout.failed', failed, now);
    return failed;
  }
}

/** The payout's event; a refund's is its own type, about the intent it refunds (its timeline shows it), carrying the refund object. */
export function recordPayoutEvent(tx: Sql, tenant: Tenant, type: 'payout.created' | 'payout.completed' | 'payout.failed', payout: PayoutRow, now: Date) {
  if (payout.kind === 'refund') {
    return recordEvent(tx, tenant, REFUND_EVENTS[type], refundObject(payout), { id: payout.payment_intent_id!, kind: 'payment_intent' }, now);
  }
  return recordEvent(
    tx,
    tenant,
    type,
    {
      payout_id: payout.id,
      quote_id: payout.quote_id,
      status: payout.status,
      external_ref: payout.external_ref,
      asset: payout.asset,
      network: payout.network,
      destination: payout.destination,
      // Decimal strings: the contract leaves payout event types open, and strings are exact.
      amount: new Decimal(payout.amount).toFixed(),
      fee: new Decimal(payout.fee).toFixed(),
      user_sends: new Decimal(payout.user_sends).toFixed(),
      tx_hash: payout.tx_hash,
      failure_reason: payout.failure_reason,
    },
    { id: payout.id, kind: 'payout' },
    now,
  );
}
