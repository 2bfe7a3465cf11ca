import { organizationAllows } from '../domain/access.js';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { Decimal } from '../domain/money.js';
import { amountRemaining, effectiveStatus, REF_CODE_LENGTH } from '../domain/payment-intents.js';
import { paymentUri } from '../domain/payment-uri.js';
import type { Database } from '../store/database.js';
import { findOrganization } from '../store/organizations.js';
import { findPublicIntent, type IntentRow, type PublicIntentRow } from '../store/payment-intents.js';
import { tenantOf } from '../store/tenancy.js';
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

export interface PayerAddress {
  asset: string;
  network: string;
  networkName: string;
  address: string;
  /** What the QR code holds: a payment URI where the network has a scheme, else the address. */
  qrText: string;
}

export interface PayerView {
  id: string;
  refCode: string;
  sandbox: boolean;
  status: PayerStatus;
  addresses: PayerAddress[];
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

  async view(lookup: PageLookup): Promise<PayerView | null> {
    const intent = await this.intent(lookup, true);
    if (!intent) return null;
    const rows = intent.addresses;
    const status = this.present(intent);
    // The amount goes into the URI only in the primary currency: in another one it would need a price.
    const due = status.state === 'waiting' || status.state === 'partial' ? new Decimal(status.amount_remaining) : null;
    return {
      id: intent.id,
      refCode: intent.ref_code,
      sandbox: intent.mode === 'test',
      status,
      addresses: rows.map((row) => {
        const pair = this.catalog.pair(row.asset, row.network);
        const network = this.catalog.network(row.network);
        // A pair since removed from the catalog still has its address shown, as a bare address.
        const qrText =
          pair && network
            ? paymentUri({
                chainId: network.chain_id,
                addressFormat: network.address_format,
                address: row.address,
                tokenContract: pair.token_contract,
                decimals: pair.decimals,
                amount: row.asset === intent.currency ? due : null,
              })
            : row.address;
        return { asset: row.asset, network: row.network, networkName: network?.name ?? row.network, address: row.address, qrText };
      }),
    };
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
            network_name: this.catalog.network(deposit.network)?.name ?? deposit.network,
            amount: new Decimal(deposit.amount).toFixed(),
            confirmations: Math.min(deposit.blocks_read, pair.confirmations_required),
            confirmations_required: pair.confirmations_required,
          },
        ];
      }),
    };
  }
}
