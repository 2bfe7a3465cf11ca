import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import { withoutUrls } from '../domain/text.js';
import { usdPerUnit } from '../domain/valuation.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import { endpointFreeMessage } from '../providers/chains/rpc-errors.js';
import type { Database, Sql } from '../store/database.js';
import { claimDueLivePayouts, endAttempt, lockLeased, type LeasedPayout } from '../store/payout-leases.js';
import { findPayout, updatePayoutStatus, type PayoutRow } from '../store/payouts.js';
import type { AtBoundary, HotWallet, PayoutOutcome } from './outcomes.js';

/** How live payouts are worked on (docs/money-out.md, "Live payouts: states and leases"). */
export interface LivePayoutEngine {
  /** How long an attempt may hold a payout before another process may take it over. */
  leaseSeconds: number;
  /** Seconds after an attempt before the payout is looked at again. */
  recheckSeconds: number;
  /** Attempts one sweep of one network makes at most. */
  sweepLimit: number;
  /** Seconds between two sweeps of a network, unless `sweepSecondsByNetwork` names it. */
  sweepSeconds: number;
  sweepSecondsByNetwork: Readonly<Record<string, number>>;
  /** Called at each step boundary; tests make it never return, as a killed process never goes on. */
  atBoundary?: AtBoundary;
}

/** Where a sweep reports what the operator should know. */
export interface SweepLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * What an outcome does to the money, written in the outcome's transaction under the lease: the ledger's moves and
 * the events of the kind of outbound action (a payout, a refund). Completion settles the reserved funds; failure
 * releases them, and is reached only on a proof that nothing was or can still be sent.
 */
export interface Settlement {
  complete(tx: Sql, tenant: Tenant, payout: PayoutRow, txHash: string): Promise<unknown>;
  fail(tx: Sql, tenant: Tenant, payout: PayoutRow, reason: string): Promise<unknown>;
}

/** The hot wallet of each live network (absent: none is configured there, and its payouts stay open). */
export type HotWallets = (network: string) => HotWallet | null;

/**
 * The outcome with no URL in its reason, whichever hot wallet gave it: a reason is logged, and stored on the payout
 * (`last_error`, `failure_reason`), and an RPC endpoint's URL carries the provider's API key.
 */
const withoutUrlsIn = (outcome: PayoutOutcome): PayoutOutcome => ('reason' in outcome ? { ...outcome, reason: withoutUrls(outcome.reason) } : outcome);

const AT_FEE_CAP = 'live payout: unmined, and its fee is already what the quote charged; it waits for the network fees to fall';

/**
 * The leased engine of outbound money (docs/architecture.md, "Outbound money"): claims due live payouts (and
 * refunds, which are payouts of kind refund) network by network, has the network's hot wallet take one step under
 * the lease, and writes its closed outcome in one transaction under the same lease (a lost lease writes nothing).
 */
export class OutboundEngine {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly prices: PriceSource,
    private readonly clock: Clock,
    private readonly priceMaxAgeSeconds: number,
    private readonly hotWallets: HotWallets,
    /** The networks live payouts can go out on. */
    readonly networks: readonly string[],
    private readonly settlement: Settlement,
    private readonly options: LivePayoutEngine,
  ) {}

  /** Seconds between two sweeps of the network's live payouts. */
  sweepSeconds(network: string): number {
    return this.options.sweepSecondsByNetwork[network] ?? this.options.sweepSeconds;
  }

  /** A payout just reserved, under the lease it was created with: its first attempt, in the process that created it. */
  async firstAttempt(leased: LeasedPayout, log: SweepLog): Promise<void> {
    await this.options.atBoundary?.('reserved', leased.lease.payoutId);
    await this.attempt(leased, log);
  }

  /**
   * One sweep of open live payouts: each network on its own (a dead endpoint delays only its own payouts), each
   * taking due payouts one at a time under a lease, oldest due first; a payout worked goes to the back of the
   * line, so every due payout is reached. Instances sweep side by side. Answers how many payouts were settled.
   */
  async sweep(log: SweepLog, networks: readonly string[] = this.networks): Promise<number> {
    const settled = await Promise.all(networks.map((network) => this.sweepNetwork(network, log)));
    return settled.reduce((total, n) => total + n, 0);
  }

  private async sweepNetwork(network: string, log: SweepLog): Promise<number> {
    // Only what was due when the sweep began: a payout worked now is due again at a later sweep, not this one.
    const dueBy = this.clock.now();
    let settled = 0;
    for (let attempts = 0; attempts < this.options.sweepLimit; attempts++) {
      const [claimed] = await claimDueLivePayouts(this.db, network, dueBy, this.clock.now(), this.options.leaseSeconds, 1);
      if (!claimed) break;
      if (await this.attempt(claimed, log)) settled++;
    }
    await this.hotWallets(network)
      ?.maintain?.(network)
      .catch((err: unknown) => log.error({ err, network }, 'live payouts: filling nonce gaps failed; tried again at the next sweep'));
    return settled;
  }

  /**
   * One attempt at a live payout under its lease: the hot wallet takes the next step and answers one of its closed
   * outcomes, which is written in one transaction under the same lease. Funds are released only on `not_sent`, the
   * proof that nothing was or can still be sent. Answers whether the payout was settled (completed or failed).
   */
  private async attempt({ payout, lease }: LeasedPayout, log: SweepLog): Promise<boolean> {
    const outcome = await this.advance({ payout, lease });
    await this.options.atBoundary?.('outcome', payout.id);
    this.report(payout, outcome, log);
    const tenant = tenantOf({ organizationId: payout.organization_id, mode: payout.mode });
    return this.db.transaction(async (tx) => {
      if (!(await lockLeased(tx, lease))) return false;
      const locked = (await findPayout(tx, tenant, payout.id))!;
      const now = this.clock.now();
      let settled = true;
      switch (outcome.kind) {
        case 'confirmed':
          await this.settlement.complete(tx, tenant, locked, outcome.txHash);
          break;
        case 'not_sent':
          await this.settlement.fail(tx, tenant, locked, outcome.reason);
          break;
        case 'sent':
          if (locked.status === 'pending' || locked.tx_hash !== outcome.txHash) {
            await updatePayoutStatus(tx, tenant, locked.id, { status: 'processing', txHash: outcome.txHash }, now);
          }
          settled = false;
          break;
        case 'unknown':
          settled = false;
      }
      const lastError = outcome.kind === 'unknown' ? outcome.reason : outcome.kind === 'sent' && outcome.atFeeCap ? AT_FEE_CAP : null;
      await endAttempt(tx, lease, now, this.options.recheckSeconds, lastError);
      return settled;
    });
  }

  private async advance({ payout, lease }: LeasedPayout): Promise<PayoutOutcome> {
    const hotWallet = this.hotWallets(payout.network);
    if (!hotWallet) return { kind: 'unknown', reason: `no hot wallet is configured for ${payout.network} on this deployment; the payout waits for one` };
    return hotWallet
      .advance({
        payoutId: payout.id,
        organizationId: payout.organization_id,
        asset: payout.asset,
        network: payout.network,
        destination: payout.destination,
        amount: payout.amount,
        feeCap: await this.feeCap(payout).catch(() => null),
        cancelRequested: payout.cancel_requested_at !== null,
        lease,
      })
      .then(withoutUrlsIn, (error: unknown): PayoutOutcome => ({ kind: 'unknown', reason: endpointFreeMessage(error) }));
  }

  /** What the operator should hear of an outcome: what leaves a payout in doubt, and money that went out by other means. */
  private report(payout: PayoutRow, outcome: PayoutOutcome, log: SweepLog): void {
    const about = { payoutId: payout.id, network: payout.network };
    if (outcome.kind === 'unknown') log.warn({ ...about, reason: outcome.reason }, 'live payout: still open after this attempt; tried again at the next one');
    if (outcome.kind === 'sent' && outcome.atFeeCap) log.warn({ ...about, txHash: outcome.txHash }, AT_FEE_CAP);
    if (outcome.kind === 'not_sent' && outcome.proof === 'nonce_used_elsewhere') {
      log.error({ ...about, reason: outcome.reason }, 'live payout: its nonce was used by a transaction it did not send; is the hot wallet used by something else?');
    }
  }

  /**
   * What the quote charged for the network fee, in the network's native asset (which pays it): the fee itself
   * for a native payout, otherwise its USD value at the current native price; null without a fresh price.
   */
  private async feeCap(payout: PayoutRow): Promise<string | null> {
    const native = this.catalog.data.networks.find((n) => n.code === payout.network)!.native_asset;
    if (payout.asset === native) return new Decimal(payout.fee).toFixed();
    const usd = usdPerUnit(native, await this.prices.current(), this.clock.now(), this.priceMaxAgeSeconds);
    return usd === null ? null : new Decimal(payout.fee_total_usd).dividedBy(usd).toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed();
  }
}
