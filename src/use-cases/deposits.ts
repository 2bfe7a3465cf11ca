import { Decimal, toNumber } from '../domain/money.js';
import { applyCredit, effectiveStatus } from '../domain/payment-intents.js';
import { findAddressById, type AddressRow } from '../store/addresses.js';
import type { Sql } from '../store/database.js';
import { findDepositByIdentity, insertDeposit, post, type TransactionRow } from '../store/ledger.js';
import { lockIntent, recordCredit, type DepositSnapshot, type IntentRow } from '../store/payment-intents.js';
import type { Tenant } from '../store/tenancy.js';
import { recordEvent } from './events.js';
import { expireIntent } from './expiry.js';

/** A confirmed on-chain deposit to one of our addresses, from whatever source saw it. */
export interface IncomingDeposit {
  addressId: string;
  /** On-chain identity: the same (network, tx hash, output index) is credited at most once. */
  network: string;
  txHash: string;
  outputIndex: number;
  amount: Decimal;
  fromAddress: string;
}

export interface CreditResult {
  transaction: TransactionRow;
  /** True when this on-chain output had been credited before: nothing changed. */
  duplicate: boolean;
  /** The intent as this credit left it, when the address belongs to one (and the credit is new). */
  intent: IntentRow | null;
}

const metadataOf = (intent: IntentRow) => intent.metadata ?? {};

/**
 * The one deposit-credit use case (simulator today, chain watchers later), run inside the caller's
 * transaction: the ledger row, the balance, the intent and the events commit together or not at all.
 * The intent row is locked first, so concurrent credits to one intent apply one after another and exactly
 * one of them can complete it.
 */
export async function creditDeposit(tx: Sql, deposit: IncomingDeposit): Promise<CreditResult> {
  const address = await findAddressById(tx, deposit.addressId);
  if (!address) throw new Error(`deposit to unknown address ${deposit.addressId}`);
  const tenant: Tenant = { organizationId: address.organization_id, mode: address.mode };
  const intent = address.payment_intent_id ? await lockIntent(tx, address.payment_intent_id) : null;

  const transaction = await insertDeposit(tx, {
    organization_id: tenant.organizationId,
    mode: tenant.mode,
    profile_id: address.profile_id,
    external_ref: address.external_ref,
    asset: address.asset,
    network: address.network,
    amount: deposit.amount.toFixed(),
    from_address: deposit.fromAddress,
    to_address: address.address,
    tx_hash: deposit.txHash,
    output_index: deposit.outputIndex,
    address_id: address.id,
    payment_intent_id: address.payment_intent_id,
  });
  if (!transaction) {
    const existing = await findDepositByIdentity(tx, deposit.network, deposit.txHash, deposit.outputIndex);
    return { transaction: existing!, duplicate: true, intent: null };
  }

  const updated = intent ? await creditIntent(tx, tenant, intent, address, transaction) : null;
  if (!intent) await recordStandaloneDeposit(tx, tenant, address, transaction);
  // Last: every deposit of an organization's treasury posts to one balance row, and its lock is held until
  // commit, so the less that runs after it, the more deposits per second that balance can take.
  await post(tx, { ...tenant, profileId: address.profile_id, asset: address.asset, network: address.network }, transaction.id, transaction.amount);
  return { transaction, duplicate: false, intent: updated };
}

async function creditIntent(tx: Sql, tenant: Tenant, locked: IntentRow, address: AddressRow, transaction: TransactionRow): Promise<IntentRow> {
  // An intent past expiry that the sweeper has not reached yet is expired first, so its events stay in order.
  const intent = effectiveStatus(locked, new Date()) === 'expired' && locked.status === 'pending' ? await expireIntent(tx, locked) : locked;
  const credit = new Decimal(transaction.amount);
  const outcome = applyCredit(
    { amount: new Decimal(intent.amount), amountReceived: new Decimal(intent.amount_received), status: intent.status },
    credit,
  );
  const snapshot: DepositSnapshot = {
    amount_received: transaction.amount,
    currency: address.asset,
    network: address.network,
    address_receiver: address.address,
    address_sender: transaction.from_address!,
    tx_hash: transaction.tx_hash!,
  };
  const updated = await recordCredit(tx, intent.id, {
    amountReceived: outcome.amountReceived.toFixed(),
    status: outcome.status,
    deposit: snapshot,
  });

  const related = { id: intent.id, kind: 'payment_intent' as const };
  const common = {
    ref_code: intent.ref_code,
    currency: snapshot.currency,
    address_receiver: snapshot.address_receiver,
    address_sender: snapshot.address_sender,
    network: snapshot.network,
    hash: snapshot.tx_hash,
  };
  await recordEvent(
    tx,
    tenant,
    'payment_intent.payment_received',
    {
      ...common,
      amount: toNumber(credit),
      // A credit after the intent ended reports the state it ended in (see docs/payment-intents.md).
      status: outcome.status === 'pending' ? 'partial' : outcome.status,
      metadata: metadataOf(intent),
      amount_received: toNumber(outcome.amountReceived),
      amount_remaining: toNumber(outcome.amountRemaining),
      partial_payment: outcome.partialPayment,
    },
    related,
  );
  if (outcome.completes) {
    await recordEvent(
      tx,
      tenant,
      'payment_intent.completed',
      { ...common, amount: toNumber(updated.amount), status: 'completed', metadata: metadataOf(intent) },
      related,
    );
  }
  return updated;
}

async function recordStandaloneDeposit(tx: Sql, tenant: Tenant, address: AddressRow, transaction: TransactionRow): Promise<void> {
  await recordEvent(
    tx,
    tenant,
    'address.deposit.received',
    {
      address_id: address.id,
      transaction_id: transaction.id,
      external_ref: address.external_ref,
      amount: toNumber(transaction.amount),
      currency: address.asset,
      network: address.network,
      address_receiver: address.address,
      address_sender: transaction.from_address,
      hash: transaction.tx_hash,
    },
    { id: address.id, kind: 'address' },
  );
}
