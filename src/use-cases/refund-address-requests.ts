import { randomUUID } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import {
  findPair,
  hashLinkToken,
  isLinkToken,
  newLinkToken,
  REFUND_LINK_PATH,
  REFUND_LINK_TTL_SECONDS,
  refundAddressStatus,
  type RefundPair,
} from '../domain/refund-address-requests.js';
import { refundableOn } from '../domain/refunds.js';
import { encodeAddress, hasChecksum, isValidDestination, type AddressFormat } from '../providers/chains/address-codecs.js';
import type { Database, Sql } from '../store/database.js';
import { findIntent } from '../store/payment-intents.js';
import { receivedPairs } from '../store/refunds.js';
import {
  cancelRefundAddressRequest,
  creditedPairs,
  findRequestByToken,
  findRefundAddressRequest,
  insertRefundAddressRequest,
  submitRefundAddress,
  type RefundAddressRequestRow,
} from '../store/refund-address-requests.js';
import type { Tenant } from '../domain/tenancy.js';
import { recordEvent } from './events.js';
import { checkPaymentIntentId } from './payment-intents.js';
import type { Answer, Once, Operations } from './once.js';

export interface CreateRefundAddressRequestInput {
  expires_in_seconds?: number;
}

/** A request as the partner sees it; `url` only on the answer that created it (the token is stored hashed). */
export interface RefundAddressRequestView extends RefundAddressRequestRow {
  url: string | null;
}

/**
 * What the payer's page shows: the intent's reference and, on each pair the payer may choose, what came in, what
 * its refunds not failed took (sent or on their way), and what can still be refunded, so the payer is not misled.
 */
export interface RefundLinkView {
  refCode: string;
  sandbox: boolean;
  /** `checksummed`: whether the network's addresses carry a checksum; the page warns the payer when they do not. */
  pairs: (RefundPair & { networkName: string; checksummed: boolean; received: string; refunded: string; refundable: string })[];
}

/** Why an address the payer typed is refused; the page says each in the payer's language. */
export type AddressProblem = 'network_required' | 'address_invalid' | 'address_without_checksum';

export type PayerChoice = RefundPair & { address: string; networkName: string };

/** What a link opens: the form while open; once the payer submitted, the address recorded (holding the token is the capability). */
export type LinkPage = { state: 'open'; view: RefundLinkView } | { state: 'submitted'; view: RefundLinkView; choice: PayerChoice };

export type Submission =
  | { outcome: 'accepted'; choice: PayerChoice; view: RefundLinkView }
  /** The link was already used: the address it recorded, unchanged, whatever was posted this time. */
  | { outcome: 'recorded'; choice: PayerChoice; view: RefundLinkView }
  | { outcome: 'refused'; problem: AddressProblem; view: RefundLinkView }
  /** The link opens nothing (unknown, cancelled, expired while open): one answer for all, so it tells nothing. */
  | { outcome: 'invalid' };

/** Longer than any address of the catalog's formats; anything longer is refused before any decoding. */
const MAX_ADDRESS_LENGTH = 128;

/**
 * The refund address a payer gives: the partner asks for a link (for an intent that received money), sends it
 * to the payer, and the payer chooses a network among those the money came on and gives an address, once.
 */
export class RefundAddressRequests {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    /** The service's public URL, where links point. */
    private readonly publicUrl: string,
    private readonly operations: Operations,
  ) {}

  /** POST /payment-intents/{id}/refund-address-requests, once per idempotency key (the link is answered once, stored null). */
  createOnce(tenant: Tenant, paymentIntentId: string, input: CreateRefundAddressRequestInput, once: Once<RefundAddressRequestView>): Promise<Answer> {
    return this.operations.once(once, async () => async (tx) => ({ value: await this.create(tx, tenant, paymentIntentId, input) }));
  }

  /** POST /refund-address-requests/{id}/cancel, once per idempotency key. */
  cancelOnce(tenant: Tenant, id: string, once: Once<RefundAddressRequestView>): Promise<Answer> {
    return this.operations.once(once, async () => async (tx) => ({ value: await this.cancel(tx, tenant, id) }));
  }

  /** In the caller's transaction (the IDEM key's): 404 for another tenant's intent, 400 for one that received nothing. */
  private async create(tx: Sql, tenant: Tenant, paymentIntentId: string, input: CreateRefundAddressRequestInput): Promise<RefundAddressRequestView> {
    checkPaymentIntentId(paymentIntentId, 'payment_intent_id');
    const ttl = input.expires_in_seconds ?? REFUND_LINK_TTL_SECONDS.default;
    const intent = await findIntent(tx, tenant, paymentIntentId);
    if (!intent) throw notFound('payment intent', 'payment_intent_id');
    const credited = await creditedPairs(tx, tenant, paymentIntentId);
    if (credited.length === 0) {
      throw new DomainError('invalid_request', 'The payment intent has received nothing: there is nothing to refund.', 'payment_intent_id');
    }
    const now = this.clock.now();
    const token = newLinkToken();
    const row = await insertRefundAddressRequest(tx, {
      id: randomUUID(),
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      payment_intent_id: paymentIntentId,
      token_hash: hashLinkToken(token),
      networks: credited,
      expires_at: new Date(now.getTime() + ttl * 1000),
      created_at: now,
    });
    return { ...row, url: `${this.publicUrl}${REFUND_LINK_PATH}/${token}` };
  }

  async get(sql: Sql, tenant: Tenant, id: string): Promise<RefundAddressRequestView> {
    const row = isUuid(id) ? await findRefundAddressRequest(sql, tenant, id) : null;
    if (!row) throw notFound('refund address request');
    return { ...row, url: null };
  }

  /** Closes the link before the payer uses it; a request already submitted, cancelled or expired is 409. */
  private async cancel(tx: Sql, tenant: Tenant, id: string): Promise<RefundAddressRequestView> {
    const row = isUuid(id) ? await cancelRefundAddressRequest(tx, tenant, id, this.clock.now()) : null;
    if (row) return { ...row, url: null };
    // Read after the refused change, so a submission that committed meanwhile is what the message names.
    const current = await this.get(tx, tenant, id);
    const status = refundAddressStatus(current, this.clock.now());
    throw new DomainError('invalid_state', `The refund address request is ${status}; only an open one can be cancelled.`, 'id');
  }

  /**
   * The payer's page; null for every link that opens nothing: unknown, cancelled, or expired while open. A
   * submitted link keeps showing what it recorded, so a reload or a second click on Confirm is not told the
   * link is invalid right after the address was taken.
   */
  page(token: string): Promise<LinkPage | null> {
    return this.open(this.db, token);
  }

  /** What the page shows back for confirmation: the address checked, or why it is refused; a used link, its address. */
  async review(token: string, pair: string | undefined, address: string | undefined): Promise<Submission> {
    const page = await this.page(token);
    if (!page) return { outcome: 'invalid' };
    if (page.state === 'submitted') return { outcome: 'recorded', choice: page.choice, view: page.view };
    const { view } = page;
    const checked = this.check(view, pair, address);
    return 'problem' in checked ? { outcome: 'refused', problem: checked.problem, view } : { outcome: 'accepted', choice: checked, view };
  }

  /**
   * The payer's submission: checked again (a form can be sent without the review), then recorded once with its
   * event, in one transaction. A second submission, even concurrent, finds the link used and answers the address
   * the first recorded: nothing changes and no event is written again.
   */
  async submit(token: string, pair: string | undefined, address: string | undefined): Promise<Submission> {
    const reviewed = await this.review(token, pair, address);
    if (reviewed.outcome !== 'accepted') return reviewed;
    const { choice, view } = reviewed;
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const row = await submitRefundAddress(tx, hashLinkToken(token), choice, now);
      if (!row) {
        // Read after the refused change: the submission that won meanwhile is committed, and is what the page shows.
        const current = await this.open(tx, token);
        return current?.state === 'submitted' ? ({ outcome: 'recorded', choice: current.choice, view: current.view } as const) : ({ outcome: 'invalid' } as const);
      }
      await recordEvent(
        tx,
        { organizationId: row.organization_id, mode: row.mode },
        'refund_address.submitted',
        {
          refund_address_request_id: row.id,
          payment_intent_id: row.payment_intent_id,
          asset: row.asset,
          network: row.network,
          address: row.address,
          submitted_at: now.toISOString(),
        },
        { id: row.payment_intent_id, kind: 'payment_intent' },
        now,
      );
      return { outcome: 'accepted', choice, view } as const;
    });
  }

  private async open(sql: Sql, token: string): Promise<LinkPage | null> {
    const request = isLinkToken(token) ? await findRequestByToken(sql, hashLinkToken(token)) : null;
    const status = request && refundAddressStatus(request, this.clock.now());
    if (!request || (status !== 'open' && status !== 'submitted')) return null;
    const view = await this.view(sql, request);
    if (!view) return null;
    if (status === 'open') return { state: 'open', view };
    const { asset, network, address } = request;
    return { state: 'submitted', view, choice: { asset: asset!, network: network!, address: address!, networkName: this.networkName(network!) } };
  }

  private async view(sql: Sql, request: RefundAddressRequestRow): Promise<RefundLinkView | null> {
    const tenant = { organizationId: request.organization_id, mode: request.mode };
    const intent = await findIntent(sql, tenant, request.payment_intent_id);
    if (!intent) return null;
    // The refunds' own reading (credited, and taken by refunds not failed, per pair): the page and a quote agree.
    const pairs = await receivedPairs(sql, tenant, request.payment_intent_id);
    return {
      refCode: intent.ref_code,
      sandbox: request.mode === 'test',
      pairs: request.networks.map((pair) => {
        const found = pairs.find((r) => r.asset === pair.asset && r.network === pair.network);
        return {
          ...pair,
          networkName: this.networkName(pair.network),
          checksummed: this.checksummed(pair.network),
          received: found ? found.received.toFixed() : '0',
          refunded: found ? found.refunded.toFixed() : '0',
          refundable: found ? refundableOn(found).toFixed() : '0',
        };
      }),
    };
  }

  private check(view: RefundLinkView, pairValue: string | undefined, typed: string | undefined): PayerChoice | { problem: AddressProblem } {
    const pair = findPair(view.pairs, pairValue);
    if (!pair) return { problem: 'network_required' };
    // Whitespace is never part of an address, and pasted text often carries some: it is dropped, nothing else.
    const address = (typed ?? '').trim();
    // A network since removed from the catalog has no codec to check against: nothing can be accepted for it.
    const format = this.catalog.network(pair.network)?.address_format;
    if (!format || address.length > MAX_ADDRESS_LENGTH || !isValidDestination(format, address)) return { problem: 'address_invalid' };
    if (!carriesChecksum(format, address)) return { problem: 'address_without_checksum' };
    return { asset: pair.asset, network: pair.network, networkName: pair.networkName, address };
  }

  private networkName(network: string): string {
    return this.catalog.network(network)?.name ?? network;
  }

  private checksummed(network: string): boolean {
    const format = this.catalog.network(network)?.address_format;
    return format !== undefined && hasChecksum(format);
  }
}

/**
 * A payer types or pastes the address, so a typo must be caught where a checksum can catch it: an EVM address is
 * taken only in its EIP-55 mixed case, whose checksum catches one. A single-case one (which payouts accept) carries
 * none. Tron's and Bitcoin's always carry theirs (base58check, bech32), checked by the codec. A Solana key has none
 * at all (`hasChecksum`): the page warns the payer instead.
 */
function carriesChecksum(format: AddressFormat, address: string): boolean {
  return format !== 'evm' || address === encodeAddress('evm', hexToBytes(address.slice(2).toLowerCase()));
}
