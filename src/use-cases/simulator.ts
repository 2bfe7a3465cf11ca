import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { checkDecimals, Decimal, parseAmount } from '../domain/money.js';
import { remainingIn } from '../domain/valuation.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import { amountRemaining } from '../domain/payment-intents.js';
import { simulatedSender, simulatedTxHash } from '../providers/chains/sandbox-chain.js';
import { findAddress, type AddressRow } from '../store/addresses.js';
import type { Database, Sql } from '../store/database.js';
import { findIntentWithAddresses } from '../store/payment-intents.js';
import { countDepositsTo } from '../store/transactions.js';
import type { Tenant } from '../domain/tenancy.js';
import { creditDeposit, type CreditPrices, type CreditResult } from './deposits.js';
import type { Answer, Once, Operations } from './once.js';
import type { IntentView } from './payment-intents.js';

export interface SimulateIntentDeposit {
  amount?: string | number;
  currency?: string;
  network?: string;
}

/** The intent after a simulated deposit, and the credit made (null when the call changed nothing). */
export interface SimulatedIntentDeposit {
  view: IntentView;
  credit: CreditResult | null;
}

/**
 * The sandbox's stand-in for a chain watcher: it makes up a deposit and hands it to the same credit use
 * case real deposits go through. Hashes derive from the owner and a sequence number, so runs are
 * reproducible; the sequence is read under the owner's row lock, so concurrent calls never share one.
 */
export class DepositSimulator {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    private readonly prices: PriceSource,
    private readonly priceMaxAgeSeconds: number,
    private readonly metrics: Metrics,
    private readonly operations: Operations,
  ) {}

  /** Prices for the credit, fetched before its transaction opens (a price feed is an outside call). */
  private async creditPrices(): Promise<CreditPrices> {
    return { snapshot: await this.prices.current(), maxAgeSeconds: this.priceMaxAgeSeconds };
  }

  /**
   * Without an amount it pays what remains, in the primary currency on its first network (in another accepted
   * currency: what remains, converted at the current price and rounded up to that currency's decimals).
   */
  async simulateIntentDeposit(tenant: Tenant, intentId: string, input: SimulateIntentDeposit): Promise<IntentView> {
    const { view, credit } = await this.db.transaction(await this.intentDeposit(tenant, intentId, input));
    this.countCredit(tenant, credit);
    return view;
  }

  /** `simulateIntentDeposit` once per idempotency key (a key also guards a partial deposit); the credit is counted once committed. */
  simulateIntentDepositOnce(tenant: Tenant, intentId: string, input: SimulateIntentDeposit, once: Once<IntentView>): Promise<Answer> {
    return this.operations.once(once, async () => {
      const deposit = await this.intentDeposit(tenant, intentId, input);
      return async (tx) => {
        const { view, credit } = await deposit(tx);
        return { value: view, afterCommit: async () => this.countCredit(tenant, credit) };
      };
    });
  }

  /**
   * `simulateIntentDeposit` in two steps: prices are fetched now, outside any transaction; the returned step
   * credits in the caller's transaction, and the caller counts the credit once committed (`countCredit`).
   */
  private async intentDeposit(tenant: Tenant, intentId: string, input: SimulateIntentDeposit): Promise<(tx: Sql) => Promise<SimulatedIntentDeposit>> {
    const prices = await this.creditPrices();
    return async (tx) => {
      const intent = await findIntentWithAddresses(tx, tenant, intentId, true);
      if (!intent) throw notFound('payment intent');
      // The anchor is completed_at: once completed, a call changes nothing.
      if (intent.status === 'completed') return { view: intent, credit: null };

      const currency = input.currency ?? intent.currency;
      if (!intent.currencies.includes(currency)) {
        throw new DomainError('invalid_request', `This intent does not accept ${currency}; it accepts ${intent.currencies.join(', ')}.`, 'currency');
      }
      const target = intent.addresses.find((a) => a.asset === currency && (input.network === undefined || a.network === input.network));
      if (!target) throw new DomainError('invalid_request', `This intent has no ${currency} address on ${input.network}.`, 'network');
      const remaining = amountRemaining(new Decimal(intent.amount), new Decimal(intent.amount_received));
      const amount =
        input.amount === undefined
          ? this.amountFor(undefined, this.remainingIn(currency, intent.currency, remaining, prices, target.network), currency, target.network)
          : this.amountFor(input.amount, null, currency, target.network);

      const seed = `${intent.id}:${intent.deposit_count + 1}`;
      const credited = await this.credit(tx, tenant, { id: target.id, network: target.network }, seed, amount, prices, intent);
      return { view: { ...(credited.intent ?? intent), addresses: intent.addresses, refunds: intent.refunds }, credit: credited };
    };
  }

  async simulateAddressDeposit(tenant: Tenant, addressId: string, input: { amount: string | number }): Promise<AddressRow> {
    const prices = await this.creditPrices();
    const { address, credit } = await this.db.transaction(async (tx) => {
      const address = await findAddress(tx, tenant, addressId, true);
      if (!address) throw notFound('address');
      if (address.payment_intent_id) {
        throw new DomainError('invalid_request', 'This address belongs to a payment intent; simulate on the intent instead.', 'id');
      }
      const amount = this.amountFor(input.amount, null, address.asset, address.network);
      const count = await countDepositsTo(tx, tenant, address.id);
      return { address, credit: await this.credit(tx, tenant, address, `${address.id}:${count + 1}`, amount, prices) };
    });
    this.countCredit(tenant, credit);
    return address;
  }

  /** Counted once committed, so a credit rolled back is not; an on-chain output seen before is not a new credit. */
  countCredit(tenant: Tenant, credit: CreditResult | null): void {
    if (credit && !credit.duplicate) this.metrics.credited(tenant.mode);
  }

  private amountFor(given: string | number | undefined, remaining: Decimal | null, asset: string, network: string): Decimal {
    if (given === undefined) {
      if (remaining === null || remaining.lte(0)) {
        throw new DomainError('invalid_request', 'Nothing remains to be paid; pass an amount.', 'amount');
      }
      return remaining;
    }
    const amount = parseAmount(given, 'amount');
    checkDecimals(amount, this.catalog.pair(asset, network)!.decimals, asset, 'amount');
    const max = new Decimal(this.catalog.asset(asset)!.max_amount);
    if (amount.gt(max)) throw new DomainError('invalid_request', `amount is above ${max.toFixed()}, the most one ${asset} deposit may be.`, 'amount');
    return amount;
  }

  /** What remains of an intent, in `currency` (rounded up, so paying it completes the intent). */
  private remainingIn(currency: string, primary: string, remaining: Decimal, prices: CreditPrices, network: string): Decimal {
    const decimals = this.catalog.pair(currency, network)!.decimals;
    const value = remainingIn(remaining, primary, currency, decimals, prices.snapshot, this.clock.now(), prices.maxAgeSeconds);
    if (value === null) {
      throw new DomainError('price_unavailable', `No fresh price to convert what remains into ${currency}; pass an amount.`, 'amount');
    }
    return value;
  }

  private credit(
    tx: Sql,
    tenant: Tenant,
    address: { id: string; network: string },
    seed: string,
    amount: Decimal,
    prices: CreditPrices,
    lockedIntent?: IntentView,
  ): Promise<CreditResult> {
    const format = this.catalog.addressFormat(address.network);
    return creditDeposit(
      tx,
      tenant,
      {
        addressId: address.id,
        network: address.network,
        txHash: simulatedTxHash(format, seed),
        outputIndex: 0,
        amount,
        fromAddress: simulatedSender(format, seed),
      },
      this.clock,
      prices,
      lockedIntent,
    );
  }
}
