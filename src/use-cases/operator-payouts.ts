import { parseTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import { isTerminal } from '../domain/payouts.js';
import type { Database } from '../store/database.js';
import { findPayoutNonce, type NonceRow, type TxPurpose } from '../store/evm-payouts.js';
/** The closed lists of a payout's nonce and transactions, as the operator API's schemas name them. */
export { NONCE_STATUSES, TX_PURPOSES } from '../store/evm-payouts.js';
import { payoutTxs, type ExpiringTx } from '../store/expiring-payouts.js';
import { findLivePayout, listOpenLivePayouts, type LivePayoutRow, type OpenStatus } from '../store/live-payouts.js';
import type { Page, PageRequest } from '../store/pagination.js';
import { requestCancel } from '../store/payout-leases.js';

/** The cursor list name of open live payouts, shared by the API, the CLI and the dashboard. */
export const LIVE_PAYOUT_LIST = 'live-payouts';
export const OPEN_STATUSES: readonly OpenStatus[] = ['pending', 'processing'];

export interface LivePayout extends LivePayoutRow {
  /** Open, leased and the lease not lapsed: an attempt is (or may still be) under way. */
  lease_held: boolean;
}

export interface SignedTxView {
  tx_hash: string;
  purpose: TxPurpose;
  /** Decoded from the signed bytes; null for a hash whose bytes were not kept (before migration 014). */
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; gas: bigint } | null;
}

/** The payout's nonce of the hot wallet and every transaction signed at it, newest first. */
export interface ChainView {
  nonce: number;
  status: NonceRow['status'];
  fee_cap_wei: string | null;
  broadcast_at: Date | null;
  tx_hash: string | null;
  /** What the current transaction is for; null while nothing is signed. */
  purpose: TxPurpose | null;
  transactions: SignedTxView[];
}

export interface LivePayoutView {
  payout: LivePayout;
  /** Null until the payout holds a nonce (and again once an unsigned nonce went back). */
  chain: ChainView | null;
  /** On chains without nonces (Tron, Solana): every transaction signed for it, first signed first. */
  expiring: ExpiringTx[];
}

/**
 * The operator's look at live payouts of every tenant, and the cancellation of a stuck one: recorded here,
 * carried out by the payout engine under the payout's lease (docs/live-evm.md, "Cancelling a stuck live
 * payout"). Sandbox payouts have no engine state and no chain: they are not found here.
 */
export class OperatorPayouts {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
  ) {}

  async get(id: string): Promise<LivePayoutView> {
    const row = isUuid(id) ? await findLivePayout(this.db, id) : null;
    if (!row) throw notFound('live payout', 'payout_id');
    const [nonce, expiring] = await Promise.all([findPayoutNonce(this.db, id), payoutTxs(this.db, id)]);
    return { payout: this.withLease(row), chain: nonce && chainView(nonce), expiring };
  }

  async list(filters: { statuses?: OpenStatus[]; network?: string }, page: PageRequest): Promise<Page<LivePayout>> {
    if (filters.network !== undefined && !this.catalog.network(filters.network)) {
      throw new DomainError('catalog_invalid', `${filters.network} is not a network of the catalog.`, 'network');
    }
    const found = await listOpenLivePayouts(this.db, { statuses: filters.statuses ?? [...OPEN_STATUSES], network: filters.network }, page);
    return { ...found, rows: found.rows.map((row) => this.withLease(row)) };
  }

  /** Records the operator's cancel request (asking again changes nothing) and answers the payout as it now is. */
  async cancel(id: string): Promise<LivePayoutView> {
    if (!isUuid(id) || !(await requestCancel(this.db, id, this.clock.now()))) {
      const { payout } = await this.get(id);
      throw new DomainError('invalid_state', `The payout is ${payout.status}: only a pending or processing live payout can be cancelled.`, 'payout_id');
    }
    return this.get(id);
  }

  /** A settled payout is never attempted again: whatever its lease columns still say, it has no lease and no next attempt. */
  private withLease(row: LivePayoutRow): LivePayout {
    const nextAttemptAt = isTerminal(row.status) ? null : row.next_attempt_at;
    return { ...row, next_attempt_at: nextAttemptAt, lease_held: row.leased && nextAttemptAt !== null && nextAttemptAt > this.clock.now() };
  }
}

function chainView(row: NonceRow): ChainView {
  return {
    nonce: Number(row.nonce),
    status: row.status,
    fee_cap_wei: row.fee_cap_wei,
    broadcast_at: row.broadcast_at,
    tx_hash: row.tx_hash,
    purpose: row.tx_hash === null ? null : row.current_purpose,
    transactions: row.txs.map((tx) => ({ tx_hash: tx.tx_hash, purpose: tx.purpose, fees: tx.raw === null ? null : feesOf(tx.raw) })),
  };
}

/** Every transaction the engine signs is EIP-1559. */
function feesOf(raw: string): SignedTxView['fees'] {
  const { maxFeePerGas, maxPriorityFeePerGas, gas } = parseTransaction(raw as Hex) as TransactionSerializableEIP1559;
  return { maxFeePerGas: maxFeePerGas!, maxPriorityFeePerGas: maxPriorityFeePerGas!, gas: gas! };
}
