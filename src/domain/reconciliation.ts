import { Decimal } from './money.js';

/**
 * ok: the chain holds exactly what the ledger owes; surplus: more (the hot wallet's float, fees kept, money not
 * credited yet); shortfall: less, money the owners are owed is not on chain; unavailable: the chain could not be
 * read, so nothing is concluded.
 */
export const RECONCILIATION_STATUSES = ['ok', 'surplus', 'shortfall', 'unavailable'] as const;
export type ReconciliationStatus = (typeof RECONCILIATION_STATUSES)[number];

/**
 * Why one deposit address holds other than what was credited to it. pending: the difference is deposits seen and
 * not credited yet (confirmations, quarantine); uncredited: money arrived that no deposit record explains (an
 * asset the address was not given out for, a transfer the watcher cannot see such as an internal one); missing:
 * money left the address, which the service never does (the operator's offline key, or a stolen one).
 */
export const DRIFT_REASONS = ['pending', 'uncredited', 'missing'] as const;
export type DriftReason = (typeof DRIFT_REASONS)[number];

/** One deposit address in one asset: what the ledger credited to it, what is waiting, what the chain holds. */
export interface AddressFigures {
  address: string;
  /** The organizations the address was handed out to (one, unless an operator reused an address). */
  organizationIds: string[];
  credited: Decimal;
  pending: Decimal;
  onChain: Decimal;
}

/** What the ledger says about one live network and asset, over every tenant. */
export interface LedgerFigures {
  available: Decimal;
  reserved: Decimal;
  /**
   * Broadcast payouts (processing) at what settling them takes from the owners, amount and fee: still reserved in
   * the ledger, possibly already gone from the hot wallet (with the gas of a native payout, paid out of its fee).
   */
  inFlight: Decimal;
  /** Completed payouts, what left through the hot wallet. */
  paidOut: Decimal;
}

export interface DriftingAddress {
  address: string;
  organization_ids: string[];
  on_chain: string;
  credited: string;
  pending: string;
  /** on_chain − credited. */
  drift: string;
  reason: DriftReason;
}

/** The figures behind a result, as stored and shown (decimal strings). */
export interface ReconciliationDetails {
  ledger: { available: string; reserved: string; in_flight: string; total: string };
  deposit_addresses: { count: number; credited: string; pending: string; on_chain: string | null };
  hot_wallet: { address: string; balance: string | null; paid_out: string; in_flight: string } | null;
  /** Addresses whose on-chain balance differs from what was credited to them, largest difference first. */
  addresses: DriftingAddress[];
  /** Drifting addresses left out of `addresses` to keep the result small. */
  addresses_left_out: number;
}

export interface ReconciliationResult {
  network: string;
  asset: string;
  status: ReconciliationStatus;
  ledgerTotal: Decimal;
  onChainTotal: Decimal | null;
  drift: Decimal | null;
  details: ReconciliationDetails;
  error: string | null;
}

/** How many drifting addresses a result lists; the rest are counted. */
export const MAX_LISTED_ADDRESSES = 500;

const sum = (values: Decimal[]) => values.reduce((total, value) => total.plus(value), new Decimal(0));

/**
 * What the ledger owes on this network and asset, as the chain should show it: the owners' available and reserved
 * funds, less broadcast payouts, whose money may already have left the hot wallet while the ledger still holds it
 * reserved until confirmation. Counting them as gone errs toward a surplus while they are unmined, never toward a
 * false shortfall.
 */
export const ledgerTotal = (ledger: LedgerFigures) => ledger.available.plus(ledger.reserved).minus(ledger.inFlight);

function driftReason(figures: AddressFigures, drift: Decimal): DriftReason {
  if (drift.isNegative()) return 'missing';
  return figures.pending.gte(drift) ? 'pending' : 'uncredited';
}

function drifting(addresses: readonly AddressFigures[]): DriftingAddress[] {
  return addresses
    .map((figures) => ({ figures, drift: figures.onChain.minus(figures.credited) }))
    .filter(({ drift }) => !drift.isZero())
    .sort((a, b) => b.drift.abs().comparedTo(a.drift.abs()) || a.figures.address.localeCompare(b.figures.address))
    .map(({ figures, drift }) => ({
      address: figures.address,
      organization_ids: figures.organizationIds,
      on_chain: figures.onChain.toFixed(),
      credited: figures.credited.toFixed(),
      pending: figures.pending.toFixed(),
      drift: drift.toFixed(),
      reason: driftReason(figures, drift),
    }));
}

function ledgerDetails(ledger: LedgerFigures): ReconciliationDetails['ledger'] {
  return { available: ledger.available.toFixed(), reserved: ledger.reserved.toFixed(), in_flight: ledger.inFlight.toFixed(), total: ledgerTotal(ledger).toFixed() };
}

/**
 * Compares one network and asset: the deposit addresses (nothing is swept, so each should hold what was credited
 * to it) and the hot wallet on chain, against the owners' liabilities in the ledger. The status follows the
 * totals; the addresses say where a difference sits (an operator's own sweep shows as `missing` addresses with a
 * hot wallet grown by as much, and an ok total).
 */
export function reconcile(input: {
  network: string;
  asset: string;
  ledger: LedgerFigures;
  addresses: readonly AddressFigures[];
  hotWallet: { address: string; balance: Decimal } | null;
}): ReconciliationResult {
  const { ledger, addresses, hotWallet } = input;
  const onDeposits = sum(addresses.map((a) => a.onChain));
  const onChainTotal = onDeposits.plus(hotWallet?.balance ?? 0);
  const total = ledgerTotal(ledger);
  const drift = onChainTotal.minus(total);
  const listed = drifting(addresses);
  return {
    network: input.network,
    asset: input.asset,
    status: drift.isZero() ? 'ok' : drift.isPositive() ? 'surplus' : 'shortfall',
    ledgerTotal: total,
    onChainTotal,
    drift,
    details: {
      ledger: ledgerDetails(ledger),
      deposit_addresses: depositAddresses(addresses, onDeposits),
      hot_wallet: hotWallet && { address: hotWallet.address, balance: hotWallet.balance.toFixed(), paid_out: ledger.paidOut.toFixed(), in_flight: ledger.inFlight.toFixed() },
      addresses: listed.slice(0, MAX_LISTED_ADDRESSES),
      addresses_left_out: Math.max(0, listed.length - MAX_LISTED_ADDRESSES),
    },
    error: null,
  };
}

function depositAddresses(addresses: readonly Omit<AddressFigures, 'onChain'>[], onChain: Decimal | null): ReconciliationDetails['deposit_addresses'] {
  return {
    count: addresses.length,
    credited: sum(addresses.map((a) => a.credited)).toFixed(),
    pending: sum(addresses.map((a) => a.pending)).toFixed(),
    on_chain: onChain?.toFixed() ?? null,
  };
}

/** A network whose chain could not be read: the ledger's side alone, and why; never a drift. */
export function unavailable(input: {
  network: string;
  asset: string;
  ledger: LedgerFigures;
  addresses: readonly Omit<AddressFigures, 'onChain'>[];
  hotWallet: string | null;
  error: string;
}): ReconciliationResult {
  const { ledger, addresses } = input;
  return {
    network: input.network,
    asset: input.asset,
    status: 'unavailable',
    ledgerTotal: ledgerTotal(ledger),
    onChainTotal: null,
    drift: null,
    details: {
      ledger: ledgerDetails(ledger),
      deposit_addresses: depositAddresses(addresses, null),
      hot_wallet: input.hotWallet === null ? null : { address: input.hotWallet, balance: null, paid_out: ledger.paidOut.toFixed(), in_flight: ledger.inFlight.toFixed() },
      addresses: [],
      addresses_left_out: 0,
    },
    error: input.error,
  };
}
