import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { checkDecimals, Decimal, parseAmount } from '../domain/money.js';
import { amountRemaining } from '../domain/payment-intents.js';
import { simulatedSender, simulatedTxHash } from '../providers/chains/sandbox-chain.js';
import { findAddress, type AddressRow } from '../store/addresses.js';
import type { Database, Sql } from '../store/database.js';
import { countDepositsTo } from '../store/transactions.js';
import type { Tenant } from '../store/tenancy.js';
import { creditDeposit, type CreditResult } from './deposits.js';
import { loadIntent, type IntentView } from './payment-intents.js';

export interface SimulateIntentDeposit {
  amount?: string | number;
  currency?: string;
  network?: string;
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
  ) {}

  /** Without an amount it pays what remains, in the primary currency on its first network. */
  simulateIntentDeposit(tenant: Tenant, intentId: string, input: SimulateIntentDeposit): Promise<IntentView> {
    return this.db.transaction(async (tx) => {
      const intent = await loadIntent(tx, tenant, intentId, true);
      if (!intent) throw notFound('payment intent');
      // The anchor is completed_at: once completed, a call changes nothing.
      if (intent.status === 'completed') return intent;

      const currency = input.currency ?? intent.currency;
      if (!intent.currencies.includes(currency)) {
        throw new DomainError('invalid_request', `This intent does not accept ${currency}; it accepts ${intent.currencies.join(', ')}.`, 'currency');
      }
      const target = intent.addresses.find((a) => a.asset === currency && (input.network === undefined || a.network === input.network));
      if (!target) throw new DomainError('invalid_request', `This intent has no ${currency} address on ${input.network}.`, 'network');
      const amount = this.amountFor(input.amount, amountRemaining(new Decimal(intent.amount), new Decimal(intent.amount_received)), currency, target.network);

      const seed = `${intent.id}:${intent.deposit_count + 1}`;
      const credited = await this.credit(tx, tenant, { id: target.id, network: target.network }, seed, amount);
      return { ...(credited.intent ?? intent), addresses: intent.addresses };
    });
  }

  simulateAddressDeposit(tenant: Tenant, addressId: string, input: { amount: string | number }): Promise<AddressRow> {
    return this.db.transaction(async (tx) => {
      const address = await findAddress(tx, tenant, addressId, true);
      if (!address) throw notFound('address');
      if (address.payment_intent_id) {
        throw new DomainError('invalid_request', 'This address belongs to a payment intent; simulate on the intent instead.', 'id');
      }
      const amount = this.amountFor(input.amount, null, address.asset, address.network);
      const count = await countDepositsTo(tx, tenant, address.id);
      await this.credit(tx, tenant, address, `${address.id}:${count + 1}`, amount);
      return address;
    });
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

  private credit(tx: Sql, tenant: Tenant, address: { id: string; network: string }, seed: string, amount: Decimal): Promise<CreditResult> {
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
    );
  }
}
