import { randomUUID } from 'node:crypto';
import type { Caller } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { checkDecimals, Decimal, parseAmount } from '../domain/money.js';
import { QUOTE_TTL_SECONDS, type PayoutStatus, type RefundNetworkFee } from '../domain/payouts.js';
import { amountRefunded, countedAmount, excessOn, refundableOn, refundSplit, type ReceivedPair } from '../domain/refunds.js';
import { isValidDestination } from '../providers/chains/address-codecs.js';
import type { Database, Sql } from '../store/database.js';
import type { AnswerClaim } from '../store/idempotency.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { findIntentWithAddresses } from '../store/payment-intents.js';
import * as store from '../store/payouts.js';
import type { PayoutRow, QuoteRow } from '../store/payouts.js';
import { submittedRefundAddress } from '../store/refund-address-requests.js';
import { receivedPairs } from '../store/refunds.js';
import { tenantOf, type Tenant } from '../domain/tenancy.js';
import { checkPaymentIntentId } from './payment-intents.js';
import type { Answer, Once, Operations } from './once.js';
import type { PayoutExecution } from './payout-execution.js';
import type { PayoutQuotes } from './payout-quotes.js';
import type { Payouts } from './payouts.js';
import { checkRefundable } from './refund-checks.js';
import type { SandboxPayouts } from './sandbox-payouts.js';

export interface RefundQuoteInput {
  amount?: string | number;
  portion?: 'all' | 'excess';
  asset?: string;
  network?: string;
  destination?: string;
  refund_address_id?: string;
  network_fee: RefundNetworkFee;
  reason?: string;
}

export interface RefundQuoteView {
  quote: QuoteRow;
  /** What the pair could refund before this refund. */
  refundable: Decimal;
  /** How much more the owner's balance needs on the network, when it holds less than the refund takes. */
  insufficientFunds: Decimal | null;
}

/**
 * Refunds of payment intents (docs/refunds.md): a refund is a payout of kind refund, reserved as a payout's
 * execution reserves (`PayoutExecution`) and worked by the outbound engine; what is a refund's own is its quote
 * (how much the intent can give back, on which pair, who pays the fee) and the check at execution that the intent
 * still can.
 */
export class Refunds {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    private readonly quotes: PayoutQuotes,
    private readonly execution: PayoutExecution,
    private readonly payouts: Payouts,
    private readonly sandbox: SandboxPayouts,
    private readonly operations: Operations,
  ) {}

  /** POST /payment-intents/{id}/refunds/quote, once per idempotency key: stored with the key's claim in one statement. */
  quote(caller: Caller, intentId: string, input: RefundQuoteInput, once: Once<RefundQuoteView>): Promise<Answer> {
    return this.operations.inOneStatement(once, () => this.prepareQuote(caller, intentId, input));
  }

  /**
   * Step one, outside any transaction: reads the intent and what it received, picks the pair and the amount,
   * checks the destination, prices the network fee as a payout's. Answers the statement that stores the quote with
   * the idempotency record holding `answer(view)` (false: another request holds the key).
   */
  private async prepareQuote(
    caller: Caller,
    intentId: string,
    input: RefundQuoteInput,
  ): Promise<(sql: Sql, answer: (view: RefundQuoteView) => AnswerClaim) => Promise<boolean>> {
    const tenant = tenantOf(caller);
    checkPaymentIntentId(intentId, 'id');
    if (input.amount !== undefined && input.portion !== undefined) {
      throw new DomainError('invalid_request', 'Give either amount or portion, not both.', 'portion');
    }
    const intent = await findIntentWithAddresses(this.db, tenant, intentId, false);
    if (!intent) throw new DomainError('resource_not_found', 'No payment intent with that id.', 'id');
    const target = await this.targetOf(tenant, intentId, input);
    const pair = this.pickPair(await receivedPairs(this.db, tenant, intentId), target);
    const network = this.catalog.pair(pair.asset, pair.network);
    // Money came on it, but the deployment's catalog no longer has the pair: nothing can be sent there.
    if (!network) throw new DomainError('catalog_invalid', `${pair.asset} on ${pair.network} is no longer in this deployment's catalog: it cannot be refunded there.`, 'network');
    const destination = target.destination;
    if (!isValidDestination(this.catalog.addressFormat(pair.network), destination)) {
      throw new DomainError('invalid_request', `destination is not a valid ${pair.network} address.`, 'destination');
    }
    const refundable = refundableOn(pair);
    const { amount, counted, portion } = this.amountOf(input, pair, network.decimals, {
      amount: new Decimal(intent.amount),
      received: new Decimal(intent.amount_received),
      refunded: amountRefunded(intent.refunds),
    });
    if (amount.gt(refundable)) {
      throw new DomainError(
        'refund_exceeds_refundable',
        `amount is more than this payment intent can still refund in ${pair.asset} on ${pair.network}: ${refundable.toFixed()}.`,
        'amount',
      );
    }
    const route = await this.quotes.priceOn(tenant, pair.asset, network, { profileId: intent.profile_id }, destination);
    const { recipientGets, ownerPays } = refundSplit(amount, route.fee, input.network_fee);
    const now = this.clock.now();
    const quote: QuoteRow = {
      id: `quote_${randomUUID().replaceAll('-', '')}`,
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      profile_id: intent.profile_id,
      external_ref: intent.external_ref,
      destination,
      asset: pair.asset,
      network: pair.network,
      amount: recipientGets.toFixed(),
      fee: route.fee.toFixed(),
      user_sends: ownerPays.toFixed(),
      fee_total_usd: route.feeUsd.toFixed(),
      estimated_seconds: route.estimatedSeconds,
      expires_at: new Date(now.getTime() + QUOTE_TTL_SECONDS * 1000),
      created_at: now,
      used_at: null,
      kind: 'refund',
      payment_intent_id: intent.id,
      refund_amount: amount.toFixed(),
      refund_amount_counted: counted.toFixed(),
      refund_network_fee: input.network_fee,
      refund_reason: input.reason ?? null,
      refund_portion: portion,
    };
    const view: RefundQuoteView = { quote, refundable, insufficientFunds: route.available.lt(ownerPays) ? ownerPays.minus(route.available) : null };
    return (sql, answer) => store.insertQuote(sql, quote, answer(view));
  }

  /**
   * Where the refund goes: the partner's `destination`, or the address the payer submitted through a refund address
   * request of this intent (`refund_address_id`; docs/refunds.md, "The refund address the payer gives"), which
   * also names the pair.
   */
  private async targetOf(tenant: Tenant, intentId: string, input: RefundQuoteInput): Promise<{ asset?: string; network?: string; destination: string }> {
    if (input.refund_address_id === undefined) {
      if (input.destination === undefined) throw new DomainError('invalid_request', 'Give destination, or refund_address_id.', 'destination');
      return { asset: input.asset, network: input.network, destination: input.destination };
    }
    if (input.destination !== undefined) throw new DomainError('invalid_request', 'Give either destination or refund_address_id, not both.', 'refund_address_id');
    // Another tenant's or another intent's request answers as an unknown one.
    const submitted = await submittedRefundAddress(this.db, tenant, input.refund_address_id, intentId);
    if (!submitted) {
      throw new DomainError('invalid_request', 'No address was submitted through a refund address request with that id for this payment intent.', 'refund_address_id');
    }
    for (const key of ['asset', 'network'] as const) {
      if (input[key] !== undefined && input[key] !== submitted[key]) {
        throw new DomainError('invalid_request', `The payer gave an address for ${submitted.asset} on ${submitted.network}; ${key} must match it or be left out.`, key);
      }
    }
    return { asset: submitted.asset, network: submitted.network, destination: submitted.address };
  }

  /**
   * The pair the refund goes out on: the one named by `asset` and `network` (each may be left out when the other
   * one, or the intent's money, leaves a single pair), among those the intent received money on.
   */
  private pickPair(pairs: ReceivedPair[], input: { asset?: string; network?: string }): ReceivedPair {
    if (pairs.length === 0) throw new DomainError('invalid_request', 'This payment intent has received nothing: there is nothing to refund.', 'id');
    const matching = pairs.filter((p) => (input.asset ?? p.asset) === p.asset && (input.network ?? p.network) === p.network);
    if (matching.length === 1) return matching[0]!;
    const received = pairs.map((p) => `${p.asset} on ${p.network}`).join(', ');
    // None: the pair given is wrong; several: the pair is not given whole.
    const param = matching.length === 0 ? (input.network === undefined ? 'asset' : 'network') : input.asset === undefined ? 'asset' : 'network';
    throw new DomainError(
      'invalid_request',
      matching.length === 0
        ? `This payment intent received no ${[input.asset, input.network && `on ${input.network}`].filter(Boolean).join(' ')}; it received ${received}.`
        : `This payment intent received money on more than one asset and network (${received}): give asset and network.`,
      param,
    );
  }

  /**
   * The refund's amount in the pair's asset: as given, everything refundable (`all`), or the unrefunded overpayment
   * (`excess`, which its execution checks again); with what it counts in the intent's currency.
   */
  private amountOf(
    input: RefundQuoteInput,
    pair: ReceivedPair,
    decimals: number,
    intent: Parameters<typeof excessOn>[1],
  ): { amount: Decimal; counted: Decimal; portion: 'excess' | null } {
    if (input.portion === 'excess') {
      const excess = excessOn(pair, intent, decimals);
      if (excess.amount.isZero()) {
        throw new DomainError('invalid_request', `This payment intent has no unrefunded overpayment in ${pair.asset} on ${pair.network}.`, 'portion');
      }
      return { ...excess, portion: 'excess' };
    }
    let amount: Decimal;
    if (input.amount !== undefined) {
      amount = parseAmount(input.amount, 'amount');
      checkDecimals(amount, decimals, pair.asset, 'amount');
    } else {
      amount = refundableOn(pair);
      if (amount.isZero()) throw new DomainError('refund_exceeds_refundable', `Everything received in ${pair.asset} on ${pair.network} was refunded already.`, 'portion');
    }
    return { amount, counted: countedAmount(pair, amount), portion: null };
  }

  /**
   * POST /refunds, once per idempotency key: the refund quote executed as a payout's is, after a check under the
   * intent's row lock (taken before any ledger account, as a deposit takes it: refunds of one intent queue there) that
   * the intent can still refund the amount.
   */
  execute(caller: Caller, quoteId: string, once: Once<PayoutRow>): Promise<Answer> {
    return this.execution.executeOnce(caller, quoteId, 'refund', once, checkRefundable);
  }

  // Reads and the sandbox ------------------------------------------------------------------------------------

  get(sql: Sql, tenant: Tenant, id: string): Promise<PayoutRow> {
    return this.payouts.get(sql, tenant, id, 'refund');
  }

  list(
    sql: Sql,
    tenant: Tenant,
    filters: { externalRef?: string; paymentIntentId?: string; statuses?: PayoutStatus[] },
    page: PageRequest,
  ): Promise<Page<PayoutRow>> {
    if (filters.paymentIntentId !== undefined && !isUuid(filters.paymentIntentId)) {
      throw new DomainError('invalid_request', 'payment_intent_id must be a payment intent id (a UUID).', 'payment_intent_id');
    }
    return this.payouts.list(sql, tenant, { ...filters, kind: 'refund' }, page);
  }

  simulate(tenant: Tenant, id: string, outcome: 'completed' | 'failed'): Promise<PayoutRow> {
    return this.sandbox.simulate(tenant, id, outcome, 'refund');
  }
}
