import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { Decimal } from '../domain/money.js';
import { insufficientFunds, MIN_SANDBOX_DELIVERY_SECONDS, sandboxPayoutId, type PayoutKind } from '../domain/payouts.js';
import type { PriceSnapshot } from '../domain/price-snapshot.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import { unitPricesOf } from '../domain/unit-prices.js';
import type { CustodyProvider } from '../custody/index.js';
import type { OutboundEngine } from '../outbound/engine.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Sql } from '../store/database.js';
import { reserveFunds, type Owner } from '../store/ledger.js';
import { newLease } from '../store/payout-leases.js';
import * as store from '../store/payouts.js';
import type { PayoutRow, QuoteRow } from '../store/payouts.js';
import { insertPayoutTransaction } from '../store/transactions.js';
import type { Answer, Done, Once, Operations } from './once.js';
import { recordPayoutEvent } from './payout-settlement.js';

/** A check of the quote's own kind, under its lock, before anything is reserved (a refund: that the intent still can). */
export type QuoteCheck = (tx: Sql, tenant: Tenant, quote: QuoteRow, now: Date) => Promise<void>;

/**
 * Execution of a quote: the payer's funds are reserved (available → reserved) in the transaction that records the
 * payout, its ledger transaction and its `created` event. A live payout is born leased to this process, and its
 * first attempt (the outbound engine's) runs after the commit: no chain is called inside a transaction.
 */
export class PayoutExecution {
  constructor(
    private readonly prices: PriceSource,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
    private readonly clock: Clock,
    private readonly priceMaxAgeSeconds: number,
    private readonly outbound: OutboundEngine,
    private readonly leaseSeconds: number,
    private readonly operations: Operations,
  ) {}

  /**
   * POST /payouts, once per idempotency key: the prices the row is valued at are read first (a feed is an outside
   * call, never made inside a transaction), then the quote executes with the key's claim in one transaction.
   */
  executeQuote(caller: Caller, quoteId: string, once: Once<PayoutRow>): Promise<Answer> {
    return this.executeOnce(caller, quoteId, 'payout', once);
  }

  /** The quote of `kind` executed once per idempotency key, after `check` (`execute`); a refund's, from refunds.ts. */
  executeOnce(caller: Caller, quoteId: string, kind: PayoutKind, once: Once<PayoutRow>, check?: QuoteCheck): Promise<Answer> {
    return this.operations.once(once, async () => {
      const snapshot = await this.prices.current();
      return (tx) => this.execute(tx, tenantOf(caller), quoteId, kind, snapshot, check);
    });
  }

  /**
   * Executes the quote of `kind` (a refund's quote executes only as a refund, a payout's only as a payout) in `tx`:
   * refused before anything is written when the network cannot pay out, the quote is unknown, used (live) or expired;
   * `check` runs under the quote's lock before the reservation.
   */
  private async execute(tx: Sql, tenant: Tenant, quoteId: string, kind: PayoutKind, snapshot: PriceSnapshot | null, check?: QuoteCheck): Promise<Done<PayoutRow>> {
    const quote = await store.lockQuote(tx, tenant, quoteId, kind);
    if (!quote) throw new DomainError('quote_not_found', `No ${kind} quote with that id.`, 'quote_id');
    const refusal = tenant.mode === 'live' ? this.custodyFor('live').payoutRefusal(quote.network) : null;
    // Thrown before anything is written, and a 503 is never stored as the idempotent answer: a retry tries again.
    if (refusal) throw new DomainError('provider_unavailable', `${refusal} Nothing was reserved or sent.`);
    const sandbox = tenant.mode === 'test';
    // Sandbox does not consume quotes: executing one again answers the payout it already made.
    const id = sandbox ? sandboxPayoutId(tenant.organizationId, quote.id) : randomUUID();
    if (sandbox) {
      const existing = await store.findPayout(tx, tenant, id);
      if (existing) return { value: existing };
    } else if (quote.used_at) {
      throw new DomainError('quote_already_used', 'This quote was already executed; quotes are single-use. Request a new quote.', 'quote_id');
    }
    const now = this.clock.now();
    if (now.getTime() >= quote.expires_at.getTime()) {
      throw new DomainError('quote_expired', `This quote expired at ${quote.expires_at.toISOString()}. Request a new quote.`, 'quote_id');
    }
    if (!sandbox) await store.markQuoteUsed(tx, tenant, quote.id, now);
    await check?.(tx, tenant, quote, now);

    const owner: Owner = { profileId: quote.profile_id, asset: quote.asset, network: quote.network };
    const transaction = await insertPayoutTransaction(
      tx,
      {
        id: randomUUID(),
        organization_id: tenant.organizationId,
        mode: tenant.mode,
        profile_id: quote.profile_id,
        external_ref: quote.external_ref,
        asset: quote.asset,
        network: quote.network,
        amount: quote.user_sends,
        fee: quote.fee,
        to_address: quote.destination,
        unit_prices: unitPricesOf(quote.asset, snapshot, now, this.priceMaxAgeSeconds),
      },
      quote.kind === 'refund' ? { id, paymentIntentId: quote.payment_intent_id! } : null,
      now,
    );
    const userSends = new Decimal(quote.user_sends);
    const { short } = await reserveFunds(tx, tenant, owner, userSends, { cause: `payout:${id}:reserve`, transactionId: transaction.id, createdAt: now });
    if (short) throw insufficientFunds(short, quote.asset, quote.network);

    const deliverySeconds = sandbox ? Math.max(MIN_SANDBOX_DELIVERY_SECONDS, quote.estimated_seconds) : quote.estimated_seconds;
    // A live payout is born leased to this process: its first attempt runs after the commit, and a sweep takes over only once the lease lapses.
    const lease = sandbox ? null : newLease(id, now, this.leaseSeconds);
    const payout = await store.insertPayout(tx, lease, {
      id,
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      quote_id: quote.id,
      profile_id: quote.profile_id,
      external_ref: quote.external_ref,
      destination: quote.destination,
      asset: quote.asset,
      network: quote.network,
      amount: quote.amount,
      fee: quote.fee,
      user_sends: quote.user_sends,
      fee_total_usd: quote.fee_total_usd,
      estimated_seconds: quote.estimated_seconds,
      estimated_delivery_at: new Date(now.getTime() + deliverySeconds * 1000),
      transaction_id: transaction.id,
      created_at: now,
      kind: quote.kind,
      payment_intent_id: quote.payment_intent_id,
      refund_amount: quote.refund_amount,
      refund_amount_counted: quote.refund_amount_counted,
      refund_network_fee: quote.refund_network_fee,
      refund_reason: quote.refund_reason,
    });
    await recordPayoutEvent(tx, tenant, 'payout.created', payout, now);
    if (!lease) return { value: payout };
    return { value: payout, afterCommit: (log) => this.outbound.firstAttempt({ payout: { ...payout, cancel_requested_at: null, attempts: 0 }, lease }, log) };
  }
}
