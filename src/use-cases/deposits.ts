import type { Clock } from '../domain/clock.js';
import { depositCause } from '../domain/ledger.js';
import { Decimal, toDecimalString, toNumber } from '../domain/money.js';
import type { PriceSnapshot } from '../domain/price-snapshot.js';
import { unitPricesOf } from '../domain/unit-prices.js';
import { convert } from '../domain/valuation.js';
import { applyCredit, effectiveStatus } from '../domain/payment-intents.js';
import { findAddress, type AddressRow } from '../store/addresses.js';
import type { Sql } from '../store/database.js';
import { creditFromWorld, returnToWorld } from '../store/ledger.js';
import { failDeposit, findDepositByIdentity, findTransaction, insertDeposit, type TransactionRow } from '../store/transactions.js';
import { countUncountedDeposit, findIntent, recordCredit, uncountReversedDeposit, type DepositSnapshot, type IntentRow } from '../store/payment-intents.js';
import { requestCancel } from '../store/payout-leases.js';
import { pairRefunds } from '../store/refunds.js';
import type { Tenant } from '../domain/tenancy.js';
import { recordEvent } from './events.js';
import { expireIntent } from './expiry.js';

/** A confirmed on-chain deposit to one of our addresses, from whatever source saw it. */
export interface IncomingDeposit {
  addressId: string;
  /** On-chain identity: the same (network, tx hash, output index) is credited at most once. */
  network: string;
  txHash: string;
  outputIndex: number;
  /** Which credit of the transfer this is (1 when absent): above 1 once a reorganization reversed it and a new chain mined it again. */
  round?: number;
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

/** Prices for valuing a credit in another asset than its intent's; the caller fetches them before its transaction. */
export interface CreditPrices {
  snapshot: PriceSnapshot | null;
  maxAgeSeconds: number;
}

/** The finest unit any catalog asset has: a converted credit is counted down to it, never up. */
const COUNTED_DECIMALS = 18;

/**
 * What a credit counts toward its intent, in the intent's currency: itself in the same asset; otherwise its
 * value at the current price (1:1 between assets pegged to the same fiat); null when no fresh price exists.
 */
function countedToward(intent: IntentRow, asset: string, amount: Decimal, prices: CreditPrices, now: Date): Decimal | null {
  if (asset === intent.currency) return amount;
  const value = convert(amount, asset, intent.currency, prices.snapshot, now, prices.maxAgeSeconds);
  return value === null ? null : value.toDecimalPlaces(COUNTED_DECIMALS, Decimal.ROUND_DOWN);
}

/**
 * Refuses a deposit that cannot be what it claims. These are faults of the deposit's source (a watcher, the
 * simulator), not of a partner, so they fail loudly instead of answering a 4xx.
 */
function checkDeposit(deposit: IncomingDeposit, address: AddressRow | null, tenant: Tenant): asserts address is AddressRow {
  if (!address) throw new Error(`deposit to address ${deposit.addressId}, which tenant ${tenant.organizationId}/${tenant.mode} does not own`);
  if (deposit.network !== address.network) {
    throw new Error(`deposit on ${deposit.network} to address ${address.id}, which is on ${address.network}`);
  }
  if (typeof deposit.txHash !== 'string' || deposit.txHash.length === 0) throw new Error('deposit without a tx hash');
  if (!Number.isSafeInteger(deposit.outputIndex) || deposit.outputIndex < 0) {
    throw new Error(`deposit with output index ${deposit.outputIndex}: a non-negative integer is required`);
  }
  if (!(deposit.amount instanceof Decimal) || !deposit.amount.isFinite() || deposit.amount.lte(0)) {
    throw new Error(`deposit of ${String(deposit.amount)}: a positive amount is required`);
  }
}

/**
 * The one deposit-credit use case (simulator today, chain watchers later), run inside the caller's
 * transaction: the ledger row, the balance, the intent and the events commit together or not at all.
 * `tenant` is the owner the source found the address under; the address must belong to it. The intent row
 * is locked first, so concurrent credits to one intent apply one after another and exactly one of them can
 * complete it; the business clock is read after that lock. A deposit below the pair's catalog minimum is
 * credited like any other: money is never ignored. A caller that already holds the intent's lock in `tx`
 * passes the row it read under it as `lockedIntent`, which saves reading it again.
 */
export async function creditDeposit(
  tx: Sql,
  tenant: Tenant,
  deposit: IncomingDeposit,
  clock: Clock,
  prices: CreditPrices,
  lockedIntent?: IntentRow,
): Promise<CreditResult> {
  const address = await findAddress(tx, tenant, deposit.addressId);
  checkDeposit(deposit, address, tenant);
  if (lockedIntent && lockedIntent.id !== address.payment_intent_id) {
    throw new Error(`deposit to address ${address.id} passed with intent ${lockedIntent.id}, which the address does not belong to`);
  }
  const intent = lockedIntent ?? (address.payment_intent_id ? await findIntent(tx, tenant, address.payment_intent_id, true) : null);
  // Read after the intent lock: credits that queued on it get times (and event ids) in the order they apply.
  const now = clock.now();
  const counted = intent ? countedToward(intent, address.asset, deposit.amount, prices, now) : null;

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
    counted_amount: counted === null ? null : counted.toFixed(),
    unit_prices: unitPricesOf(address.asset, prices.snapshot, now, prices.maxAgeSeconds),
  }, now);
  if (!transaction) {
    const existing = await findDepositByIdentity(tx, tenant, deposit);
    if (!existing) throw new Error(`deposit ${deposit.network}/${deposit.txHash}/${deposit.outputIndex} is recorded under another tenant`);
    return { transaction: existing, duplicate: true, intent: null };
  }

  const updated = intent ? await creditIntent(tx, tenant, intent, address, transaction, counted, now) : null;
  if (!intent) await recordStandaloneDeposit(tx, tenant, address, transaction, now);
  // Last: the owner's account shard stays locked until commit, so the less that runs after it the better.
  const transfer = await creditFromWorld(tx, tenant, {
    cause: depositCause(deposit),
    transactionId: transaction.id,
    profileId: address.profile_id,
    asset: address.asset,
    network: address.network,
    amount: transaction.amount,
    createdAt: now,
  });
  // The transactions row is unique on the same identity, so this cannot happen unless the two disagree.
  if (transfer === null) throw new Error(`ledger transfer ${depositCause(deposit)} exists without its deposit row`);
  return { transaction, duplicate: false, intent: updated };
}

async function creditIntent(
  tx: Sql,
  tenant: Tenant,
  locked: IntentRow,
  address: AddressRow,
  transaction: TransactionRow,
  counted: Decimal | null,
  now: Date,
): Promise<IntentRow> {
  // An intent past expiry that the sweeper has not reached yet is expired first, so its events stay in order.
  const intent = effectiveStatus(locked, now) === 'expired' && locked.status === 'pending' ? await expireIntent(tx, locked, now) : locked;
  const credit = new Decimal(transaction.amount);
  // Not valued (no fresh price): the money is in the balance, the intent does not move (docs/money-in.md).
  const outcome = applyCredit(
    { amount: new Decimal(intent.amount), amountReceived: new Decimal(intent.amount_received), status: intent.status },
    counted ?? new Decimal(0),
  );
  const snapshot: DepositSnapshot = {
    amount_received: transaction.amount,
    currency: address.asset,
    network: address.network,
    address_receiver: address.address,
    address_sender: transaction.from_address!,
    tx_hash: transaction.tx_hash!,
  };
  if (counted === null) await countUncountedDeposit(tx, tenant, intent.id);
  const updated =
    counted === null
      ? intent
      : await recordCredit(tx, tenant, intent.id, { amountReceived: outcome.amountReceived.toFixed(), status: outcome.status, deposit: snapshot }, now);

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
      // In the intent's currency, exact: what this credit counted toward it (null: not counted, no fresh price).
      amount_counted: counted === null ? null : toDecimalString(counted),
      // A credit after the intent ended reports the state it ended in (see docs/money-in.md).
      status: outcome.status === 'pending' ? 'partial' : outcome.status,
      metadata: metadataOf(intent),
      amount_received: toNumber(outcome.amountReceived),
      amount_remaining: toNumber(outcome.amountRemaining),
      partial_payment: outcome.partialPayment,
    },
    related,
    now,
  );
  if (outcome.completes) {
    await recordEvent(
      tx,
      tenant,
      'payment_intent.completed',
      { ...common, amount: toNumber(updated.amount), status: 'completed', metadata: metadataOf(intent) },
      related,
      now,
    );
  }
  return updated;
}

async function recordStandaloneDeposit(tx: Sql, tenant: Tenant, address: AddressRow, transaction: TransactionRow, now: Date): Promise<void> {
  await recordEvent(
    tx,
    tenant,
    'address.deposit.received',
    {
      address_id: address.id,
      transaction_id: transaction.id,
      external_ref: address.external_ref,
      // A decimal string, exact like GET /transactions: the contract leaves this event's types open.
      amount: toDecimalString(transaction.amount),
      currency: address.asset,
      network: address.network,
      address_receiver: address.address,
      address_sender: transaction.from_address,
      hash: transaction.tx_hash,
    },
    { id: address.id, kind: 'address' },
    now,
  );
}

/**
 * Takes a credited deposit back, in the caller's transaction: the chain no longer has it (a reorganization
 * deeper than its confirmations). The owner's available balance returns what it still holds of the amount to
 * the world account, what is held in reserve for an open payout or refund becomes the owner's debt (`owed`, repaid
 * by that reserve's release), the row becomes failed and `deposit.reversed` is recorded with both and with what
 * could not be taken back (spent meanwhile). The intent keeps its state (the contract has no transition out of completed), but its
 * `amount_received` no longer counts the deposit; and refunds of the pair beyond what it still received are asked to
 * cancel, newest first (their money never arrived: paying them would pay it out of the hot wallet), as the
 * operator's cancel does; a refund already sent cannot be, and `deposit.reversed` names them all for the operator.
 * The intent is locked before any ledger account, as a credit and a refund execution lock it.
 */
export async function reverseDeposit(
  tx: Sql,
  tenant: Tenant,
  identity: { network: string; txHash: string; outputIndex: number; round?: number; transactionId: string },
  clock: Clock,
) {
  const transaction = await findTransaction(tx, tenant, identity.transactionId);
  if (!transaction || transaction.status !== 'confirmed') throw new Error(`deposit ${identity.transactionId} is not a confirmed deposit of its tenant`);
  const intentId = transaction.payment_intent_id;
  if (intentId) await findIntent(tx, tenant, intentId, true);
  const now = clock.now();
  const { unrecovered, owed } = await returnToWorld(
    tx,
    tenant,
    { profileId: transaction.profile_id, asset: transaction.asset, network: transaction.network! },
    new Decimal(transaction.amount),
    { cause: `${depositCause(identity)}:reversal`, transactionId: transaction.id, createdAt: now },
  );
  await failDeposit(tx, transaction.id);
  const refunds = intentId ? await undoIntentCredit(tx, tenant, intentId, transaction, now) : { cancelRequested: [], sent: [] };
  const related = intentId ? { id: intentId, kind: 'payment_intent' as const } : { id: transaction.address_id!, kind: 'address' as const };
  await recordEvent(
    tx,
    tenant,
    'deposit.reversed',
    {
      transaction_id: transaction.id,
      payment_intent_id: intentId,
      address_id: transaction.address_id,
      external_ref: transaction.external_ref,
      amount: toDecimalString(transaction.amount),
      amount_unrecovered: toDecimalString(unrecovered),
      // Taken from money held for a payout or refund still open: repaid from it if it fails, never spendable again.
      amount_owed: toDecimalString(owed),
      currency: transaction.asset,
      network: transaction.network,
      address_receiver: transaction.to_address,
      address_sender: transaction.from_address,
      hash: transaction.tx_hash,
      reason: 'reorganization',
      refunds_cancel_requested: refunds.cancelRequested,
      refunds_beyond_received: refunds.sent,
    },
    related,
    now,
  );
  return { transaction, unrecovered, owed, refunds };
}

/**
 * The intent's side of a reversed credit: `amount_received` loses what it counted, and the pair's refunds beyond
 * what the pair still received are asked to cancel, newest first (`cancelRequested`); those already past cancelling
 * (`sent`: completed, or a sandbox refund) are named for the operator.
 */
async function undoIntentCredit(tx: Sql, tenant: Tenant, intentId: string, transaction: TransactionRow, now: Date) {
  if (transaction.counted_amount !== null) await uncountReversedDeposit(tx, tenant, intentId, transaction.counted_amount);
  const refunds = await pairRefunds(tx, tenant, intentId, transaction.asset, transaction.network!);
  let beyond = refunds.reduce((sum, r) => sum.plus(r.refund_amount), new Decimal(0)).minus(refunds[0]?.received ?? 0);
  const cancelRequested: string[] = [];
  const sent: string[] = [];
  for (const refund of refunds) {
    if (beyond.lte(0)) break;
    if (await requestCancel(tx, refund.id, now)) cancelRequested.push(refund.id);
    else sent.push(refund.id);
    beyond = beyond.minus(refund.refund_amount);
  }
  return { cancelRequested, sent };
}
