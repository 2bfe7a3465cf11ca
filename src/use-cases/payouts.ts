import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { AssetNetwork, Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { externalRefFilter, type ExternalRef } from '../domain/identifiers.js';
import { isUuid } from '../domain/ids.js';
import { checkDecimals, Decimal, parseAmount } from '../domain/money.js';
import { withoutUrls } from '../domain/text.js';
import type { NetworkFees } from '../domain/network-fees.js';
import {
  canMove,
  feeInAsset,
  insufficientFunds,
  isTerminal,
  MIN_SANDBOX_DELIVERY_SECONDS,
  QUOTE_TTL_SECONDS,
  sandboxPayoutId,
  type PayoutKind,
  type PayoutStatus,
} from '../domain/payouts.js';
import type { PriceSnapshot } from '../domain/price-snapshot.js';
import { unitPricesOf } from '../domain/unit-prices.js';
import { refundObject } from '../domain/refunds.js';
import { usdPerUnit } from '../domain/valuation.js';
import { isValidDestination } from '../providers/chains/address-codecs.js';
import { endpointFreeMessage } from '../providers/chains/rpc-errors.js';
import { simulatedTxHash } from '../providers/chains/sandbox-chain.js';
import type { CustodyProvider, PayoutOutcome } from '../providers/custody/index.js';
import type { PayoutBoundary } from '../providers/custody/custody-provider.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Database, Sql } from '../store/database.js';
import type { AnswerClaim } from '../store/idempotency.js';
import { availableBalances, releaseFunds, reserveFunds, settleFunds, type Owner } from '../store/ledger.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { claimDueLivePayouts, endAttempt, lockLeased, newLease, type LeasedPayout } from '../store/payout-leases.js';
import * as store from '../store/payouts.js';
import type { PayoutRow, QuoteRow } from '../store/payouts.js';
import { ensureProfile, findProfileId, profileFilter } from '../store/profiles.js';
import { tenantOf, type Tenant } from '../store/tenancy.js';
import { insertPayoutTransaction, settleTransaction } from '../store/transactions.js';
import { recordEvent } from './events.js';
import { checkExternalRef } from './payment-intents.js';
import { checkRefundable } from './refund-checks.js';

export interface QuoteInput {
  destination: string;
  asset: string;
  amount: string | number;
  external_ref?: string;
  network_hint?: string;
}

/** One way to send the asset: a network, its fee and how long it takes, and what the payer holds there. */
export interface RouteOption {
  network: AssetNetwork;
  feeUsd: Decimal;
  fee: Decimal;
  estimatedSeconds: number;
  available: Decimal;
}

export interface QuoteView {
  quote: QuoteRow;
  recommendation: { network: string; feeUsd: Decimal; savingsUsd: Decimal } | null;
  insufficientFunds: { needed: Decimal; networkWithLowestTopUpFee: string } | null;
}

/**
 * The outcome with no URL in its reason, whichever provider gave it: a reason is logged, and stored on the payout
 * (`last_error`, `failure_reason`), and an RPC endpoint's URL carries the provider's API key.
 */
const withoutUrlsIn = (outcome: PayoutOutcome): PayoutOutcome => ('reason' in outcome ? { ...outcome, reason: withoutUrls(outcome.reason) } : outcome);

/** How far the sandbox sweep puts back the delivery of a payout it failed to move. */
const SANDBOX_RETRY_SECONDS = 60;

/** What to do once the payout's transaction has committed (a live payout goes to the custody provider). */
export type AfterCommit = ((log: SweepLog) => Promise<void>) | null;

/** How live payouts are worked on (docs/money-out.md, "Live payouts: states and leases"). */
export interface LivePayoutEngine {
  /** How long an attempt may hold a payout before another process may take it over. */
  leaseSeconds: number;
  /** Seconds after an attempt before the payout is looked at again. */
  recheckSeconds: number;
  /** Attempts one sweep of one network makes at most. */
  sweepLimit: number;
  /** Called at each step boundary of the use case; tests make it never return, as a killed process never goes on. */
  atBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>;
}

/** Where a sweep reports what the operator should know. */
export interface SweepLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Payouts: quote → execute → track. Executing reserves the payer's funds (available → reserved) in the
 * transaction that records the payout; completion settles them (reserved → world, fee → fees); failure
 * releases them (reserved → available). Provider calls happen outside any transaction, after commit.
 */
export class Payouts {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly fees: NetworkFees,
    private readonly prices: PriceSource,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
    private readonly clock: Clock,
    private readonly priceMaxAgeSeconds: number,
    private readonly engine: LivePayoutEngine,
  ) {}

  // Quotes ------------------------------------------------------------------------------------------------

  /**
   * Step one, outside any transaction: validates the request, prices every network the destination is valid
   * on and picks the route. Answers the step that stores the quote, in one statement with the idempotency
   * record holding `answer(view)` (false: another request holds the key, nothing was written).
   */
  async prepareQuote(caller: Caller, input: QuoteInput): Promise<(sql: Sql, answer: (view: QuoteView) => AnswerClaim) => Promise<boolean>> {
    const tenant = tenantOf(caller);
    const listed = this.catalog.activeNetworks(caller.organizationSettings, caller.mode, input.asset);
    if (listed.length === 0) {
      throw new DomainError('catalog_invalid', `${input.asset} is not an asset this organization can use; see GET /capabilities.`, 'asset');
    }
    const amount = parseAmount(input.amount, 'amount');
    const max = new Decimal(this.catalog.asset(input.asset)!.max_amount);
    if (amount.gt(max)) throw new DomainError('invalid_request', `amount is above ${max.toFixed()}, the most one ${input.asset} payout may send.`, 'amount');
    const externalRef = checkExternalRef(input.external_ref);
    if (input.network_hint !== undefined && !listed.some((n) => n.network === input.network_hint)) {
      throw new DomainError('catalog_invalid', `${input.asset} cannot be sent on ${input.network_hint} by this organization; see GET /capabilities.`, 'network_hint');
    }
    const networks = this.sendable(tenant, listed, input.network_hint);
    const reachable = networks.filter((n) => isValidDestination(this.catalog.addressFormat(n.network), input.destination));
    if (reachable.length === 0) {
      throw new DomainError('invalid_request', `destination is not a valid address on any network ${input.asset} can be sent on.`, 'destination');
    }
    if (input.network_hint !== undefined && !reachable.some((n) => n.network === input.network_hint)) {
      throw new DomainError('invalid_request', `destination is not a valid ${input.network_hint} address.`, 'destination');
    }

    // An end user never seen before holds nothing (their profile is created with the quote).
    const payer = externalRef === null ? { profileId: null } : await this.knownProfile(tenant, externalRef);
    // Priced for this destination: only the networks it is valid on, and whose fee can be valued in their native asset.
    const usable = await this.routeOptions(tenant, input.asset, reachable, payer, input.destination, input.network_hint);
    const chosen = this.chooseRoute(usable, amount, input.network_hint);
    checkDecimals(amount, chosen.network.decimals, input.asset, 'amount');

    const userSends = amount.plus(chosen.fee);
    const cheaper = usable.filter((o) => o.feeUsd.lt(chosen.feeUsd)).sort((a, b) => a.feeUsd.comparedTo(b.feeUsd))[0];
    const lowestTopUp = [...usable].sort((a, b) => a.feeUsd.comparedTo(b.feeUsd))[0]!;
    const now = this.clock.now();
    return async (sql, answer) => {
      // Committed on its own: a profile is created on first use, and a quote for an end user is that use.
      const payerId = externalRef === null ? null : await ensureProfile(sql, tenant.organizationId, tenant.mode, externalRef);
      const quote: QuoteRow = {
        id: `quote_${randomUUID().replaceAll('-', '')}`,
        organization_id: tenant.organizationId,
        mode: tenant.mode,
        profile_id: payerId,
        external_ref: externalRef,
        destination: input.destination,
        asset: input.asset,
        network: chosen.network.network,
        amount: amount.toFixed(),
        fee: chosen.fee.toFixed(),
        user_sends: userSends.toFixed(),
        fee_total_usd: chosen.feeUsd.toFixed(),
        estimated_seconds: chosen.estimatedSeconds,
        expires_at: new Date(now.getTime() + QUOTE_TTL_SECONDS * 1000),
        created_at: now,
        used_at: null,
        ...PAYOUT_TERMS,
        refund_portion: null,
      };
      const view: QuoteView = {
        quote,
        recommendation: cheaper ? { network: cheaper.network.network, feeUsd: cheaper.feeUsd, savingsUsd: chosen.feeUsd.minus(cheaper.feeUsd) } : null,
        insufficientFunds: chosen.available.lt(userSends)
          ? { needed: userSends.minus(chosen.available), networkWithLowestTopUpFee: lowestTopUp.network.network }
          : null,
      };
      return store.insertQuote(sql, quote, answer(view));
    };
  }

  /**
   * The networks a payout can go out on now: on a live network without a payout signer (deposits only) a quote is
   * refused as its execution would be, naming what the operator must set; without a hint, such networks are left
   * out of the route.
   */
  private sendable(tenant: Tenant, networks: AssetNetwork[], hint: string | undefined): AssetNetwork[] {
    const custody = this.custodyFor(tenant.mode);
    const refusalOf = (network: string) => custody.payoutRefusal(network);
    const refusal = hint === undefined ? null : refusalOf(hint);
    const sendable = networks.filter((n) => refusalOf(n.network) === null);
    const reason = refusal ?? (sendable.length === 0 ? refusalOf(networks[0]!.network) : null);
    if (reason !== null) throw new DomainError('provider_unavailable', `${reason} No quote was made.`);
    return sendable;
  }

  /**
   * The price of sending `asset` to `destination` on one given network, from `payer`'s balance: the same pricing as
   * a payout's route (fee table, the provider's surcharge for this destination), refused as a payout quote is when
   * the network cannot pay out now. Refunds are priced here.
   */
  async priceOn(tenant: Tenant, asset: string, network: AssetNetwork, payer: { profileId: string | null }, destination: string): Promise<RouteOption> {
    const [option] = await this.routeOptions(tenant, asset, this.sendable(tenant, [network], network.network), payer, destination, network.network);
    return option!;
  }

  private async knownProfile(tenant: Tenant, externalRef: ExternalRef): Promise<{ profileId: string } | null> {
    const profileId = await findProfileId(this.db, tenant.organizationId, tenant.mode, externalRef);
    return profileId === null ? null : { profileId };
  }

  /**
   * Every network of the asset with its fee (in USD and in the asset) and the payer's available balance there
   * (`payer` null: an end user with no profile yet, who holds nothing). The fee is the network-fee table's, plus
   * what the custody provider says a payout to `destination` costs beyond it (a token account to create), valued
   * at the native asset's price; or what the chain charges for it now, when the provider can say and that is more.
   *
   * The network's native asset pays the fee, and a payout of another asset may spend at most its quoted fee valued
   * at the native price (the fee cap): a network without a fresh native price is left out, since nothing could go
   * out on it. Refused (503 `price_unavailable`, no quote made) when that leaves out the `required` network, or
   * every network; the same in both modes, as sandbox quotes price from the same source as live ones.
   */
  private async routeOptions(
    tenant: Tenant,
    asset: string,
    networks: AssetNetwork[],
    payer: { profileId: string | null } | null,
    destination: string,
    required?: string,
  ): Promise<RouteOption[]> {
    const snapshot = await this.prices.current();
    const usdOf = (code: string) => usdPerUnit(code, snapshot, this.clock.now(), this.priceMaxAgeSeconds);
    const usd = usdOf(asset);
    if (usd === null) throw new DomainError('price_unavailable', `No fresh ${asset} price to convert the network fee with. Retry shortly.`);
    const nativeOf = (network: AssetNetwork) => this.catalog.network(network.network)!.native_asset;
    const priced = networks.filter((n) => usdOf(nativeOf(n)) !== null);
    const missing = networks.find((n) => !priced.includes(n) && (required === undefined ? priced.length === 0 : n.network === required));
    if (missing !== undefined) {
      const native = nativeOf(missing);
      throw new DomainError(
        'price_unavailable',
        `No fresh ${native} price to convert the network fee on ${missing.network} into ${native}, which pays it, so no ${asset} payout could go out there. No quote was made; retry shortly.`,
      );
    }
    const balances =
      payer === null ? null : await availableBalances(this.db, tenant, { profileId: payer.profileId, asset }, priced.map((n) => n.network));
    const custody = this.custodyFor(tenant.mode);
    return Promise.all(
      priced.map(async (network) => {
        const fee = this.fees.fee(asset, network.network)!;
        const surcharge = new Decimal((await custody.payoutSurcharge?.(network.network, asset, destination)) ?? '0');
        const floor = new Decimal((await custody.payoutFeeFloor?.(network.network, asset, destination)) ?? '0');
        const nativeUsd = usdOf(nativeOf(network))!;
        const tableFee = surcharge.isZero() ? fee.feeUsd : fee.feeUsd.plus(surcharge.times(nativeUsd).toDecimalPlaces(6, Decimal.ROUND_UP));
        const chainFee = floor.isZero() ? null : floor.times(nativeUsd).toDecimalPlaces(6, Decimal.ROUND_UP);
        const feeUsd = chainFee?.gt(tableFee) ? chainFee : tableFee;
        const available = balances?.get(network.network) ?? new Decimal(0);
        return { network, feeUsd, fee: feeInAsset(feeUsd, usd, network.decimals), estimatedSeconds: fee.estimatedSeconds, available };
      }),
    );
  }

  /** The hinted network; otherwise the cheapest one whose balance covers the payout; otherwise the cheapest. */
  private chooseRoute(options: RouteOption[], amount: Decimal, hint: string | undefined): RouteOption {
    if (hint !== undefined) return options.find((o) => o.network.network === hint)!;
    const byFee = [...options].sort((a, b) => a.feeUsd.comparedTo(b.feeUsd));
    return byFee.find((o) => o.available.gte(amount.plus(o.fee))) ?? byFee[0]!;
  }

  // Execution ---------------------------------------------------------------------------------------------

  /**
   * Execution of a quote of `kind` (a refund's quote executes only as a refund, a payout's only as a payout): the
   * prices the row is valued at are read first (a feed is an outside call, never made inside a transaction); the
   * answered step runs in the caller's transaction.
   */
  async executeQuote(
    caller: Caller,
    quoteId: string,
    kind: PayoutKind = 'payout',
  ): Promise<(tx: Sql) => Promise<{ payout: PayoutRow; afterCommit: AfterCommit }>> {
    const snapshot = await this.prices.current();
    return (tx) => this.execute(tx, tenantOf(caller), quoteId, kind, snapshot);
  }

  private async execute(
    tx: Sql,
    tenant: Tenant,
    quoteId: string,
    kind: PayoutKind,
    snapshot: PriceSnapshot | null,
  ): Promise<{ payout: PayoutRow; afterCommit: AfterCommit }> {
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
      if (existing) return { payout: existing, afterCommit: null };
    } else if (quote.used_at) {
      throw new DomainError('quote_already_used', 'This quote was already executed; quotes are single-use. Request a new quote.', 'quote_id');
    }
    const now = this.clock.now();
    if (now.getTime() >= quote.expires_at.getTime()) {
      throw new DomainError('quote_expired', `This quote expired at ${quote.expires_at.toISOString()}. Request a new quote.`, 'quote_id');
    }
    if (!sandbox) await store.markQuoteUsed(tx, tenant, quote.id, now);
    // Under the intent's row lock, taken before any ledger account as a deposit takes it: refunds of one intent queue here.
    if (quote.kind === 'refund') await checkRefundable(tx, tenant, quote, now);

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
    const lease = sandbox ? null : newLease(id, now, this.engine.leaseSeconds);
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
    await this.recordPayoutEvent(tx, tenant, 'payout.created', payout, now);
    if (!lease) return { payout, afterCommit: null };
    return {
      payout,
      afterCommit: async (log) => {
        await this.at('reserved', payout.id);
        await this.attempt({ payout: { ...payout, cancel_requested_at: null, attempts: 0 }, lease }, log);
      },
    };
  }

  private at(boundary: PayoutBoundary, payoutId: string): Promise<void> {
    return this.engine.atBoundary?.(boundary, payoutId) ?? Promise.resolve();
  }

  /**
   * One attempt at a live payout under its lease: the custody provider takes the next step and answers one of its
   * closed outcomes, which is written in one transaction under the same lease (a lost lease writes nothing).
   * Funds are released only on `not_sent`, the provider's proof that nothing was or can still be sent. Answers
   * whether the payout was settled (completed or failed).
   */
  private async attempt({ payout, lease }: LeasedPayout, log: SweepLog): Promise<boolean> {
    const outcome = await this.custodyFor('live')
      .advancePayout({
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
    await this.at('outcome', payout.id);
    this.report(payout, outcome, log);
    const tenant = tenantOf({ organizationId: payout.organization_id, mode: payout.mode });
    return this.db.transaction(async (tx) => {
      if (!(await lockLeased(tx, lease))) return false;
      const locked = (await store.findPayout(tx, tenant, payout.id))!;
      const now = this.clock.now();
      let settled = true;
      switch (outcome.kind) {
        case 'confirmed':
          await this.complete(tx, tenant, locked, outcome.txHash);
          break;
        case 'not_sent':
          await this.fail(tx, tenant, locked, outcome.reason);
          break;
        case 'sent':
          if (locked.status === 'pending' || locked.tx_hash !== outcome.txHash) {
            await store.updatePayoutStatus(tx, tenant, locked.id, { status: 'processing', txHash: outcome.txHash }, now);
          }
          settled = false;
          break;
        case 'unknown':
          settled = false;
      }
      const lastError = outcome.kind === 'unknown' ? outcome.reason : outcome.kind === 'sent' && outcome.atFeeCap ? AT_FEE_CAP : null;
      await endAttempt(tx, lease, now, this.engine.recheckSeconds, lastError);
      return settled;
    });
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

  /**
   * One sweep of open live payouts: each network on its own (a dead endpoint delays only its own payouts), each
   * taking due payouts one at a time under a lease, oldest due first; a payout worked goes to the back of the
   * line, so every due payout is reached. Instances sweep side by side. Answers how many payouts were settled.
   */
  async sweepLive(log: SweepLog, networks: readonly string[] = this.liveNetworks()): Promise<number> {
    const settled = await Promise.all(networks.map((network) => this.sweepNetwork(network, log)));
    return settled.reduce((total, n) => total + n, 0);
  }

  /** The networks live payouts can go out on. */
  liveNetworks(): string[] {
    const served = this.custodyFor('live').networks;
    return served === 'all' ? [] : [...served];
  }

  private async sweepNetwork(network: string, log: SweepLog): Promise<number> {
    // Only what was due when the sweep began: a payout worked now is due again at a later sweep, not this one.
    const dueBy = this.clock.now();
    let settled = 0;
    for (let attempts = 0; attempts < this.engine.sweepLimit; attempts++) {
      const [claimed] = await claimDueLivePayouts(this.db, network, dueBy, this.clock.now(), this.engine.leaseSeconds, 1);
      if (!claimed) break;
      if (await this.attempt(claimed, log)) settled++;
    }
    await this.custodyFor('live').maintain?.(network).catch((err: unknown) => log.error({ err, network }, 'live payouts: filling nonce gaps failed; tried again at the next sweep'));
    return settled;
  }

  // Lifecycle ---------------------------------------------------------------------------------------------

  private async complete(tx: Sql, tenant: Tenant, payout: PayoutRow, txHash: string): Promise<PayoutRow> {
    const now = this.clock.now();
    await settleFunds(
      tx,
      tenant,
      { profileId: payout.profile_id, asset: payout.asset, network: payout.network },
      { amount: new Decimal(payout.amount), fee: new Decimal(payout.fee) },
      { cause: `payout:${payout.id}:settle`, transactionId: payout.transaction_id, createdAt: now },
    );
    await settleTransaction(tx, tenant, payout.transaction_id, { status: 'confirmed', txHash }, now);
    const completed = await store.updatePayoutStatus(tx, tenant, payout.id, { status: 'completed', txHash }, now);
    await this.recordPayoutEvent(tx, tenant, 'payout.completed', completed, now);
    return completed;
  }

  private async fail(tx: Sql, tenant: Tenant, payout: PayoutRow, reason: string): Promise<PayoutRow> {
    const now = this.clock.now();
    await releaseFunds(
      tx,
      tenant,
      { profileId: payout.profile_id, asset: payout.asset, network: payout.network },
      new Decimal(payout.user_sends),
      { cause: `payout:${payout.id}:release`, transactionId: payout.transaction_id, createdAt: now },
    );
    await settleTransaction(tx, tenant, payout.transaction_id, { status: 'failed', txHash: null }, now);
    const failed = await store.updatePayoutStatus(tx, tenant, payout.id, { status: 'failed', failureReason: reason }, now);
    await this.recordPayoutEvent(tx, tenant, 'payout.failed', failed, now);
    return failed;
  }

  /** The payout's event; a refund's is its own type, about the intent it refunds (its timeline shows it), carrying the refund object. */
  private recordPayoutEvent(tx: Sql, tenant: Tenant, type: 'payout.created' | 'payout.completed' | 'payout.failed', payout: PayoutRow, now: Date) {
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

  /** Sandbox helper: drives a payout (or a refund) to an outcome now; a move backward or out of a terminal state is refused. */
  async simulate(tenant: Tenant, id: string, outcome: 'completed' | 'failed', kind: PayoutKind = 'payout'): Promise<PayoutRow> {
    return this.db.transaction(async (tx) => {
      const payout = isUuid(id) ? await store.findPayout(tx, tenant, id, true, kind) : null;
      if (!payout) throw notFound(kind);
      if (!canMove(payout.status, outcome)) throw new PayoutStateConflict(payout, outcome);
      return outcome === 'completed'
        ? this.complete(tx, tenant, payout, this.sandboxTxHash(payout))
        : this.fail(tx, tenant, payout, 'Failed on request (sandbox simulation).');
    });
  }

  private sandboxTxHash(payout: PayoutRow): string {
    return simulatedTxHash(this.catalog.addressFormat(payout.network), `payout:${payout.id}`);
  }

  /**
   * One sweep of the sandbox's own progress: open payouts move to processing, and those whose delivery time
   * has come complete. One transaction per payout, so a sweep never holds an owner's reserved funds locked
   * for long (executions credit them); rows are claimed with SKIP LOCKED, so instances sweep side by side.
   * A payout that fails to move is logged and skipped, so it does not hold up everybody else's, and its delivery
   * is put back a minute, so it is not the first one tried at every sweep. Answers how many moves were made.
   */
  async advanceSandbox(log: SweepLog, limit = 200): Promise<number> {
    const now = this.clock.now();
    const skipped: string[] = [];
    let moved = 0;
    while (moved < limit) {
      // Set by the transaction, so that a failure can name the payout it was moving.
      const attempt: { payout?: PayoutRow } = {};
      try {
        const found = await this.db.transaction(async (tx) => {
          [attempt.payout] = await store.claimOpenSandboxPayouts(tx, now, 1, skipped);
          const payout = attempt.payout;
          if (!payout) return false;
          const tenant = tenantOf({ organizationId: payout.organization_id, mode: payout.mode });
          if (payout.estimated_delivery_at.getTime() <= now.getTime()) await this.complete(tx, tenant, payout, this.sandboxTxHash(payout));
          else await store.updatePayoutStatus(tx, tenant, payout.id, { status: 'processing' }, now);
          return true;
        });
        if (!found) break;
        moved++;
      } catch (err) {
        // Nothing claimed: the database itself failed, and the next sweep tries again.
        if (!attempt.payout) throw err;
        const { id, organization_id: organizationId, mode } = attempt.payout;
        skipped.push(id);
        const retryAt = new Date(now.getTime() + SANDBOX_RETRY_SECONDS * 1000);
        const postponed = await store.postponeSandboxPayout(this.db, tenantOf({ organizationId, mode }), id, retryAt, now).then(
          () => true,
          () => false,
        );
        log.error(
          { err, payoutId: id, organizationId },
          `sandbox payout ${id}: could not move it on; skipped, ${postponed ? `tried again from ${retryAt.toISOString()}` : 'and it could not be put back either'}`,
        );
      }
    }
    return moved;
  }

  // Reads -------------------------------------------------------------------------------------------------

  /** One payout of the tenant; GET /payouts never shows refunds, GET /refunds only them (`kind`). */
  async get(sql: Sql, tenant: Tenant, id: string, kind: PayoutKind = 'payout'): Promise<PayoutRow> {
    const payout = isUuid(id) ? await store.findPayout(sql, tenant, id, false, kind) : null;
    if (!payout) throw notFound(kind, `${kind}_id`);
    return payout;
  }

  async list(
    sql: Sql,
    tenant: Tenant,
    filters: { kind?: PayoutKind; externalRef?: string; paymentIntentId?: string; statuses?: PayoutStatus[] },
    page: PageRequest,
  ): Promise<Page<PayoutRow>> {
    const profileId = await profileFilter(sql, tenant, externalRefFilter(filters.externalRef));
    if (profileId === null) return { rows: [], hasMore: false };
    return store.listPayouts(sql, tenant, { kind: filters.kind ?? 'payout', profileId, paymentIntentId: filters.paymentIntentId, statuses: filters.statuses }, page);
  }
}

/** A plain payout's terms beyond what every quote fixes: none of a refund's. */
const PAYOUT_TERMS = {
  kind: 'payout',
  payment_intent_id: null,
  refund_amount: null,
  refund_amount_counted: null,
  refund_network_fee: null,
  refund_reason: null,
} as const;

const REFUND_EVENTS = { 'payout.created': 'refund.created', 'payout.completed': 'refund.completed', 'payout.failed': 'refund.failed' } as const;

const AT_FEE_CAP = 'live payout: unmined, and its fee is already what the quote charged; it waits for the network fees to fall';

/** 409 invalid_state, carrying the payout as it is (the route shows it beside the error). */
export class PayoutStateConflict extends DomainError {
  constructor(
    readonly payout: PayoutRow,
    outcome: string,
  ) {
    super('invalid_state', `This ${payout.kind} is ${payout.status}${isTerminal(payout.status) ? ' (final)' : ''}; it cannot become ${outcome}.`, 'outcome');
  }
}
