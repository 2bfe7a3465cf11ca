import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { AssetNetwork, Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { ExternalRef } from '../domain/identifiers.js';
import { checkDecimals, Decimal, parseAmount } from '../domain/money.js';
import type { NetworkFees } from '../domain/network-fees.js';
import { feeInAsset, QUOTE_TTL_SECONDS } from '../domain/payouts.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import { usdPerUnit } from '../domain/valuation.js';
import type { CustodyProvider } from '../custody/index.js';
import { isValidDestination } from '../providers/chains/address-codecs.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Database, Sql } from '../store/database.js';
import type { AnswerClaim } from '../store/idempotency.js';
import { availableBalances } from '../store/ledger.js';
import * as store from '../store/payouts.js';
import type { QuoteRow } from '../store/payouts.js';
import { ensureProfile, findProfileId } from '../store/profiles.js';
import type { Answer, Once, Operations } from './once.js';
import { checkExternalRef } from './payment-intents.js';

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
 * Payout quotes (docs/money-out.md): every network the destination is valid on is priced (the fee table, what the
 * chain charges beyond it, the payer's balance there), a route is picked, and the quote fixes it for 60 seconds.
 * Refunds are priced the same way (`priceOn`).
 */
export class PayoutQuotes {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly fees: NetworkFees,
    private readonly prices: PriceSource,
    private readonly custodyFor: (mode: Tenant['mode']) => CustodyProvider,
    private readonly clock: Clock,
    private readonly priceMaxAgeSeconds: number,
    private readonly operations: Operations,
  ) {}

  /** POST /payouts/quote, once per idempotency key: priced outside any transaction, stored with the key's claim in one statement. */
  quote(caller: Caller, input: QuoteInput, once: Once<QuoteView>): Promise<Answer> {
    return this.operations.inOneStatement(once, () => this.prepareQuote(caller, input));
  }

  /**
   * Step one, outside any transaction: validates the request, prices every network the destination is valid
   * on and picks the route. Answers the step that stores the quote, in one statement with the idempotency
   * record holding `answer(view)` (false: another request holds the key, nothing was written).
   */
  private async prepareQuote(caller: Caller, input: QuoteInput): Promise<(sql: Sql, answer: (view: QuoteView) => AnswerClaim) => Promise<boolean>> {
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
