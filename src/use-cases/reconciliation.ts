import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { Decimal, fromBaseUnits } from '../domain/money.js';
import { reconcile, unavailable, type AddressFigures, type LedgerFigures, type ReconciliationResult } from '../domain/reconciliation.js';
import type { ReconciledNetwork } from '../providers/chains/balances.js';
import type { Database } from '../store/database.js';
import { chainAssetsOn, readChainBalances } from './chain-balances.js';
import { lastCheckedAt, latestResults, ledgerSideOn, liveAddressesOn, saveResults, type LedgerSideRow, type LiveAddressRow, type ReconciliationRow } from '../store/reconciliation.js';

/** A network's last reconciliation, as the operator API and the dashboard present it. */
export type { ReconciliationRow };

const ZERO = new Decimal(0);

function ledgerFigures(row: LedgerSideRow | undefined): LedgerFigures {
  return {
    available: new Decimal(row?.available ?? 0),
    reserved: new Decimal(row?.reserved ?? 0),
    inFlight: new Decimal(row?.in_flight ?? 0),
    paidOut: new Decimal(row?.paid_out ?? 0),
  };
}

/** The rows of each address (an address handed out twice is one holder), in the order they were read. */
function byAddress(rows: readonly LiveAddressRow[]): Map<string, LiveAddressRow[]> {
  const holders = new Map<string, LiveAddressRow[]>();
  for (const row of rows) holders.set(row.address, [...(holders.get(row.address) ?? []), row]);
  return holders;
}

/** Each address with what was credited to it in `asset`, and what waits. */
function creditedIn(holders: ReadonlyMap<string, LiveAddressRow[]>, asset: string): Omit<AddressFigures, 'onChain'>[] {
  return [...holders].map(([address, rows]) => {
    const inAsset = rows.filter((row) => row.asset === asset);
    return {
      address,
      organizationIds: [...new Set(rows.map((row) => row.organization_id))],
      credited: inAsset.reduce((total, row) => total.plus(row.credited), ZERO),
      pending: inAsset.reduce((total, row) => total.plus(row.pending), ZERO),
    };
  });
}

/**
 * The chain reconciled against the ledger (docs/reconciliation.md): per live network and asset, the balances of
 * every deposit address handed out and of the hot wallet, against what the ledger owes the owners. Each run
 * replaces the stored latest result, which the operator API, the dashboard and the gauges read.
 */
export class Reconciliation {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    readonly networks: readonly ReconciledNetwork[],
  ) {}

  /** Reads every live network (or `network` alone) now, stores and answers the results. */
  async run(network?: string): Promise<ReconciliationRow[]> {
    const targets = network === undefined ? this.networks : this.networks.filter((n) => n.network === network);
    if (network !== undefined && targets.length === 0) {
      const served = this.networks.map((n) => n.network).join(', ') || 'none';
      throw new DomainError('invalid_request', `${network} is not a live network whose balances this deployment reads (those: ${served}).`, 'network');
    }
    const results = (await Promise.all(targets.map((target) => this.reconcileNetwork(target)))).flat();
    const at = this.clock.now();
    await this.db.transaction((tx) => saveResults(tx, results, at));
    return latestResults(this.db, network);
  }

  /**
   * The periodic job: runs unless another process stored a result less than `intervalSeconds` ago (every process
   * with workers has the job; the interval, not their number, sets how often the chain is read). Answers the
   * results that are not ok.
   */
  async runIfDue(intervalSeconds: number): Promise<ReconciliationRow[]> {
    const last = await lastCheckedAt(this.db);
    // A little early counts as due: two processes' timers drift, and the second must not always skip a round.
    if (last && this.clock.now().getTime() - last.getTime() < intervalSeconds * 900) return [];
    return (await this.run()).filter((row) => row.status !== 'ok');
  }

  latest(network?: string): Promise<ReconciliationRow[]> {
    return latestResults(this.db, network);
  }

  private async reconcileNetwork(target: ReconciledNetwork): Promise<ReconciliationResult[]> {
    const { network, hotWallet } = target;
    const pairs = chainAssetsOn(this.catalog, network);
    const holders = byAddress(await liveAddressesOn(this.db, network));
    // The chain first, the ledger after: a deposit credited meanwhile was on chain before it (its confirmations),
    // and a payout settled meanwhile left after; either way the difference is a surplus, never a false shortfall.
    const onChain = await readChainBalances(this.db, this.catalog, target, pairs, [...holders.keys(), ...(hotWallet === null ? [] : [hotWallet])]);
    const ledger = new Map((await ledgerSideOn(this.db, network)).map((row) => [row.asset, row]));
    return pairs.map(({ asset, decimals }) => {
      const figures = ledgerFigures(ledger.get(asset));
      const addresses = creditedIn(holders, asset);
      const balances = onChain.get(asset)!;
      if (!Array.isArray(balances)) return unavailable({ network, asset, ledger: figures, addresses, hotWallet, error: balances.error });
      return reconcile({
        network,
        asset,
        ledger: figures,
        addresses: addresses.map((figures, i) => ({ ...figures, onChain: fromBaseUnits(balances[i]!, decimals) })),
        hotWallet: hotWallet === null ? null : { address: hotWallet, balance: fromBaseUnits(balances[holders.size]!, decimals) },
      });
    });
  }
}
