import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics/metrics.js';
import { findAddress } from '../store/addresses.js';
import * as watch from '../store/chain-watch.js';
import type { Database, Sql } from '../store/database.js';
import type { Tenant } from '../domain/tenancy.js';
import { insertPendingDeposit } from '../store/transactions.js';
import { quarantineDeposit } from '../use-cases/deposit-quarantine.js';
import { creditDeposit, type CreditPrices } from '../use-cases/deposits.js';

/** A transfer to one of our live addresses, in the asset that address was minted for, as any chain's watcher saw it. */
export interface SeenChainDeposit {
  addressId: string;
  tenant: Tenant;
  amount: Decimal;
  txHash: string;
  /** What tells the credited transfers of one transaction apart (a log index, an instruction's position). */
  outputIndex: number;
  from: string;
  blockNumber: bigint;
  blockHash: string;
}

export const tenantOfRow = (row: { organization_id: string; mode: Tenant['mode'] }): Tenant => ({ organizationId: row.organization_id, mode: row.mode });

/**
 * Every deposit seen for the first time becomes a pending transaction row, and so does one that a reorganization
 * reversed and the new chain mined again (its next round of credits); one pending or credited is left alone.
 */
export async function recordChainDeposits(tx: Sql, clock: Clock, network: string, deposits: readonly SeenChainDeposit[]): Promise<void> {
  const known = await watch.knownChainDeposits(tx, network, deposits.map((d) => d.txHash));
  for (const deposit of deposits) {
    const { tenant } = deposit;
    const status = known.get(`${deposit.txHash}:${deposit.outputIndex}`);
    if (status === 'pending' || status === 'credited') continue;
    const address = (await findAddress(tx, tenant, deposit.addressId))!;
    const transactionId = await insertPendingDeposit(
      tx,
      {
        organization_id: tenant.organizationId,
        mode: tenant.mode,
        profile_id: address.profile_id,
        external_ref: address.external_ref,
        asset: address.asset,
        network,
        amount: deposit.amount.toFixed(),
        from_address: deposit.from,
        to_address: address.address,
        tx_hash: deposit.txHash,
        output_index: deposit.outputIndex,
        address_id: address.id,
        payment_intent_id: address.payment_intent_id,
      },
      clock.now(),
    );
    const seen = { network, tx_hash: deposit.txHash, output_index: deposit.outputIndex, block_number: deposit.blockNumber.toString(), block_hash: deposit.blockHash };
    if (status === 'reversed') {
      await watch.reopenChainDeposit(tx, seen);
      continue;
    }
    await watch.insertChainDeposit(tx, {
      ...seen,
      organization_id: tenant.organizationId,
      mode: tenant.mode,
      address_id: address.id,
      asset: address.asset,
      amount: deposit.amount.toFixed(),
      from_address: deposit.from,
      transaction_id: transactionId,
    });
  }
}

/** What a credit transaction found: `stale` means the watcher's view of the chain is no longer the newest. */
type CreditOutcome = 'credited' | 'already done' | 'stale';

/**
 * Credits pending chain deposits through the one credit use case, each in a transaction of its own, so that
 * one whose credit fails (quarantined, tried again later) holds back none of the others.
 */
export class ChainCredits {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly creditPrices: () => Promise<CreditPrices>,
    private readonly log: Pick<FastifyBaseLogger, 'error'>,
    private readonly metrics: Pick<Metrics, 'credited' | 'creditFailed'>,
  ) {}

  /**
   * Credits `due`, oldest first; `current` is checked inside each credit's transaction, under the locks it
   * takes, and a false stops the credits (another watcher knows better). Answers how many were credited.
   */
  async creditDue(network: string, due: readonly watch.ChainDepositRow[], current: (tx: Sql) => Promise<boolean>): Promise<number> {
    // Prices may be an outside call: asked for only when something is to be credited.
    if (due.length === 0) return 0;
    const prices = await this.creditPrices();
    let credited = 0;
    for (const deposit of due) {
      let outcome: CreditOutcome;
      try {
        outcome = await this.credit(network, deposit, current, prices);
      } catch (error) {
        await this.quarantine(network, deposit, error);
        continue;
      }
      if (outcome === 'stale') break;
      if (outcome === 'credited') {
        credited++;
        this.metrics.credited(deposit.mode);
      }
    }
    return credited;
  }

  private credit(network: string, deposit: watch.ChainDepositRow, current: (tx: Sql) => Promise<boolean>, prices: CreditPrices): Promise<CreditOutcome> {
    return this.db.transaction(async (tx) => {
      if (!(await current(tx))) return 'stale';
      if (!(await watch.isPending(tx, deposit))) return 'already done';
      const result = await creditDeposit(
        tx,
        tenantOfRow(deposit),
        {
          addressId: deposit.address_id,
          network,
          txHash: deposit.tx_hash,
          outputIndex: deposit.output_index,
          round: deposit.round,
          amount: new Decimal(deposit.amount),
          fromAddress: deposit.from_address,
        },
        this.clock,
        prices,
      );
      await watch.setChainDepositStatus(tx, deposit, 'credited');
      return result.duplicate ? 'already done' : 'credited';
    });
  }

  private async quarantine(network: string, deposit: watch.ChainDepositRow, error: unknown): Promise<void> {
    const failure = await quarantineDeposit(this.db, deposit, error, this.clock.now());
    this.metrics.creditFailed(network);
    this.log.error(
      {
        network,
        txHash: deposit.tx_hash,
        outputIndex: deposit.output_index,
        organizationId: deposit.organization_id,
        transactionId: deposit.transaction_id,
        attempts: failure.attempts,
        nextAttemptAt: failure.nextAttemptAt.toISOString(),
        reason: failure.reason,
      },
      'chain watcher: a deposit could not be credited; it is quarantined and tried again at nextAttemptAt, the others are credited (GET /admin/v1/deposits/quarantined)',
    );
  }
}
