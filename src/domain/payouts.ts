import { DomainError } from './errors.js';
import { derivedUuid } from './ids.js';
import { Decimal } from './money.js';

export const PAYOUT_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** A refund is a payout of its own kind: same engine, its own routes, events and ledger row type (docs/refunds.md). */
export type PayoutKind = 'payout' | 'refund';
/** Who pays a refund's network fee: taken from what the payer receives, or charged to the owner's balance on top. */
export type RefundNetworkFee = 'deducted' | 'on_top';

/** The contract: a quote is good for 60 seconds. */
export const QUOTE_TTL_SECONDS = 60;
/** A sandbox payout completes after its route's estimated time, never sooner than this. */
export const MIN_SANDBOX_DELIVERY_SECONDS = 10;

/** Forward only: pending → processing → completed | failed (pending may also end directly). */
const NEXT: Record<PayoutStatus, readonly PayoutStatus[]> = {
  pending: ['processing', 'completed', 'failed'],
  processing: ['completed', 'failed'],
  completed: [],
  failed: [],
};

export function canMove(from: PayoutStatus, to: PayoutStatus): boolean {
  return NEXT[from].includes(to);
}

export const isTerminal = (status: PayoutStatus) => NEXT[status].length === 0;

/**
 * The network fee in the asset, from its USD price: rounded up to the asset's decimals, so the fee charged
 * always covers the fee paid.
 */
export function feeInAsset(feeUsd: Decimal, usdPerUnit: Decimal, decimals: number): Decimal {
  return feeUsd.dividedBy(usdPerUnit).toDecimalPlaces(decimals, Decimal.ROUND_UP);
}

/**
 * Sandbox payouts do not consume their quote; executing one quote again must land on the same payout, so its
 * id derives from the organization and the quote id.
 */
export const sandboxPayoutId = (organizationId: string, quoteId: string) =>
  derivedUuid('connect-payments/sandbox-payout/v1', organizationId, quoteId);

export const insufficientFunds = (needed: Decimal, asset: string, network: string) =>
  new DomainError(
    'insufficient_funds',
    `The balance is short of ${needed.toFixed()} ${asset} on ${network} for this payout (amount plus network fee).`,
    'quote_id',
  );
