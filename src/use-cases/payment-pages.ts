import { organizationAllows } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { Decimal } from '../domain/money.js';
import { amountRemaining, effectiveStatus, REF_CODE_LENGTH } from '../domain/payment-intents.js';
import { paymentUri } from '../domain/payment-uri.js';
import { remainingIn } from '../domain/valuation.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Database } from '../store/database.js';
import { findOrganization } from '../store/organizations.js';
import { findPublicIntent, type IntentRow, type PublicIntentRow } from '../store/payment-intents.js';
import { tenantOf } from '../domain/tenancy.js';
import type { DepositSimulator } from './simulator.js';

/** What the end user's page shows: the payer's view of an intent, nothing of the partner (no metadata, no refs). */
export type PayerState = 'waiting' | 'partial' | 'completed' | 'expired';

export interface PayerStatus {
  state: PayerState;
  currency: string;
  /** Decimal strings: shown as they are, never computed with in the browser. */
  amount: string;
  amount_received: string;
  amount_remaining: string;
  expires_at: string;
  /** Deposits seen on chain, not confirmed yet: shown beside the state, never counted in it. */
  pending_deposits: PayerPendingDeposit[];
}

export interface PayerPendingDeposit {
  asset: string;
  network: string;
  network_name: string;
  amount: string;
  /**
   * Blocks the chain watcher has read from the deposit's own on: never more than the chain has (a watcher behind
   * the head counts fewer), and never past the required number, however late the credit.
   */
  confirmations: number;
  confirmations_required: number;
}

/**
 * The one thing the payer should do next: pay (what remains), wait for the confirmations of a payment seen on
 * chain (never pay twice), keep the receipt, or nothing more (expired).
 */
export type PayerStep = 'pay' | 'confirming' | 'receipt' | 'expired';

export function nextStep(status: PayerStatus): PayerStep {
  if (status.state === 'completed') return 'receipt';
  if (status.state === 'expired') return 'expired';
  return status.pending_deposits.length > 0 ? 'confirming' : 'pay';
}

/** One asset and network the intent accepts: the page's picker offers them all, in the intent's order. */
export interface PayerChoice {
  asset: string;
  network: string;
  networkName: string;
}

/** The chosen asset and network, to pay now. */
export interface PayerCard extends PayerChoice {
  address: string;
  /** What remains, in this asset (converted and rounded up); null when no fresh price converts it. */
  amount: string | null;
  /** What the QR code holds: a payment URI where the network has a scheme, else the address. */
  qrText: string;
}

/** The latest credited deposit: the receipt's transaction, or the late money of an expired intent. */
export interface PayerLastPayment {
  txHash: string;
  networkName: string;
}

export interface PayerView {
  id: string;
  refCode: string;
  sandbox: boolean;
  status: PayerStatus;
  step: PayerStep;
  choices: PayerChoice[];
  /** Only while the step is `pay`: no address is shown to a payer who should not send anything. */
  card: PayerCard | null;
  completedAt: string | null;
  lastPayment: PayerLastPayment | null;
}

/** The asset and network a visitor picked (query parameters); what does not match the intent is ignored. */
export interface PayerPick {
  asset?: string;
  network?: string;
}

export type PageLookup = { refCode: string } | { id: string };

const REF_CODE = new RegExp(`^[0-9A-Z]{${REF_CODE_LENGTH}}$`);

/** The contract's client dispatch order: completed, expired, partially paid, waiting. */
function payerState(intent: IntentRow, now: Date): PayerState {
  const status = effectiveStatus(intent, now);
  if (status === 'completed') return 'completed';
  if (status === 'expired') return 'expired';
  return new Decimal(intent.amount_received).gt(0) ? 'partial' : 'waiting';
}

/** The hosted payment page's reads and its sandbox button, for anyone holding the ref_code or the intent id. */
export class PaymentPages {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    private readonly simulator: DepositSimulator,
    private readonly prices: PriceSource,
    private readonly priceMaxAgeSeconds: number,
  ) {}

  /** The intent behind a page; null for a malformed, unknown or retired identifier alike. */
  private async intent<WithAddresses extends boolean>(lookup: PageLookup, withAddresses: WithAddresses) {
    const wellFormed = 'refCode' in lookup ? REF_CODE.test(lookup.refCode) : isUuid(lookup.id);
    return wellFormed ? findPublicIntent(this.db, lookup, this.clock.now(), withAddresses) : null;
  }

  async status(lookup: PageLookup): Promise<PayerStatus | null> {
    const intent = await this.intent(lookup, false);
    return intent && this.present(intent);
  }

  async view(lookup: PageLookup, pick: PayerPick = {}): Promise<PayerView | null> {
    const intent = await this.intent(lookup, true);
    if (!intent) return null;
    const status = this.present(intent);
    const step = nextStep(status);
    const choices = intent.addresses.map((row) => ({ asset: row.asset, network: row.network, networkName: this.networkName(row.network) }));
    const chosen =
      intent.addresses.find((a) => a.asset === pick.asset && a.network === pick.network) ??
      intent.addresses.find((a) => a.asset === pick.asset) ??
      intent.addresses[0]!;
    const last = intent.last_deposit;
    return {
      id: intent.id,
      refCode: intent.ref_code,
      sandbox: intent.mode === 'test',
      status,
      step,
      choices,
      card: step === 'pay' ? await this.card(chosen, intent.currency, new Decimal(status.amount_remaining)) : null,
      completedAt: intent.completed_at?.toISOString() ?? null,
      lastPayment: last && { txHash: last.tx_hash, networkName: this.networkName(last.network) },
    };
  }

  private networkName(network: string): string {
    return this.catalog.network(network)?.name ?? network;
  }

  /** The chosen address, asking for what remains in its own asset (the payment URI carries the same amount). */
  private async card(row: { asset: string; network: string; address: string }, primary: string, remaining: Decimal): Promise<PayerCard> {
    const pair = this.catalog.pair(row.asset, row.network);
    const network = this.catalog.network(row.network);
    const choice = { asset: row.asset, network: row.network, networkName: this.networkName(row.network), address: row.address };
    // A pair since removed from the catalog still has its address shown, as a bare address with no amount.
    if (!pair || !network) return { ...choice, amount: null, qrText: row.address };
    const snapshot = row.asset === primary ? null : await this.prices.current();
    const amount = remainingIn(remaining, primary, row.asset, pair.decimals, snapshot, this.clock.now(), this.priceMaxAgeSeconds);
    const qrText = paymentUri({
      chainId: network.chain_id,
      addressFormat: network.address_format,
      address: row.address,
      tokenContract: pair.token_contract,
      decimals: pair.decimals,
      amount,
    });
    return { ...choice, amount: amount?.toFixed() ?? null, qrText };
  }

  /**
   * The page's "simulate payment" button: pays what remains through the sandbox simulator, for the sandbox
   * intents the partner's sandbox key could simulate, so of an active or pending organization, not a suspended
   * one. Every refusal is the one 404 of a missing intent: a visitor learns nothing of the organization.
   */
  async simulate(id: string): Promise<PayerStatus> {
    const intent = await this.intent({ id }, false);
    if (!intent || intent.mode !== 'test') throw notFound('payment intent');
    const organization = await findOrganization(this.db, intent.organization_id);
    if (!organization || !organizationAllows(organization.status, intent.mode)) throw notFound('payment intent');
    await this.simulator.simulateIntentDeposit(tenantOf({ organizationId: intent.organization_id, mode: intent.mode }), id, {});
    return (await this.status({ id }))!;
  }

  private present(intent: PublicIntentRow): PayerStatus {
    const amount = new Decimal(intent.amount);
    const received = new Decimal(intent.amount_received);
    return {
      state: payerState(intent, this.clock.now()),
      currency: intent.currency,
      amount: amount.toFixed(),
      amount_received: received.toFixed(),
      amount_remaining: amountRemaining(amount, received).toFixed(),
      expires_at: intent.expires_at.toISOString(),
      pending_deposits: intent.pending_deposits.flatMap((deposit) => {
        const pair = this.catalog.pair(deposit.asset, deposit.network);
        // A pair since removed from the catalog is one no watcher confirms: nothing to wait for.
        if (!pair) return [];
        return [
          {
            asset: deposit.asset,
            network: deposit.network,
            network_name: this.networkName(deposit.network),
            amount: new Decimal(deposit.amount).toFixed(),
            confirmations: Math.min(deposit.blocks_read, pair.confirmations_required),
            confirmations_required: pair.confirmations_required,
          },
        ];
      }),
    };
  }
}
