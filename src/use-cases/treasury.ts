import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { Decimal, fromBaseUnits, ZERO } from '../domain/money.js';
import type { NetworkFees } from '../domain/network-fees.js';
import { planSweeps, sweepCostUsd, type Holding } from '../domain/treasury-plan.js';
import type { AssetPolicy, NetworkPolicy, TreasuryPolicy } from '../domain/treasury-policy.js';
import { usdPerUnit } from '../domain/valuation.js';
import type { ReconciledNetwork } from '../providers/chains/balances.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Database } from '../store/database.js';
import { liveAddressesOn, type LiveAddressRow } from '../store/reconciliation.js';
import { forgetTreasuryStatusOutside, owedByPendingPayouts, pauseTreasury, resumeTreasury, saveTreasuryStatus, treasuryPauses, treasuryStatus, type TreasuryPause, type TreasuryStatusRow } from '../store/treasury.js';
import { chainAssetsOn, readChainBalances } from './chain-balances.js';
import { summaryOf, type AssetPlan, type DepositHoldings } from './asset-plan.js';

export type { AssetPlan } from './asset-plan.js';

/** One network of the treasury policy, and whether its sweeping is paused. */
export interface TreasuryNetwork {
  policy: NetworkPolicy;
  pause: TreasuryPause | null;
}

/** The latest plan of one network and asset of the policy, summed, and whether its network is paused. */
export interface TreasuryStatus {
  policy: AssetPolicy;
  pause: TreasuryPause | null;
  /** Null: never planned yet. */
  latest: TreasuryStatusRow | null;
}

/** Sums, per address, what was credited and what waits of `asset` (an address handed out twice is one holder). */
function creditedByAddress(rows: readonly LiveAddressRow[], asset: string): Map<string, { credited: Decimal; pending: Decimal }> {
  const sums = new Map<string, { credited: Decimal; pending: Decimal }>();
  for (const row of rows) {
    const sum = sums.get(row.address) ?? { credited: ZERO, pending: ZERO };
    if (row.asset === asset) sums.set(row.address, { credited: sum.credited.plus(row.credited), pending: sum.pending.plus(row.pending) });
    else sums.set(row.address, sum);
  }
  return sums;
}

/**
 * What each deposit address may have swept of an asset: what it holds on chain, less what waits there (confirmations,
 * quarantine: that stays where it landed), never more than was credited to it; with the sums over the addresses.
 */
function sweepable(
  addresses: readonly string[],
  onChain: readonly Decimal[],
  credited: ReadonlyMap<string, { credited: Decimal; pending: Decimal }>,
): { holdings: Holding[]; depositAddresses: DepositHoldings } {
  const holdings: Holding[] = [];
  let held = ZERO;
  let creditedHeld = ZERO;
  let count = 0;
  addresses.forEach((address, i) => {
    const balance = onChain[i]!;
    if (balance.isZero()) return;
    count++;
    held = held.plus(balance);
    const sums = credited.get(address)!;
    const amount = Decimal.max(ZERO, Decimal.min(balance.minus(sums.pending), sums.credited));
    creditedHeld = creditedHeld.plus(amount);
    if (amount.gt(0)) holdings.push({ address, amount });
  });
  return { holdings, depositAddresses: { count, onChain: held, notCredited: held.minus(creditedHeld) } };
}

/**
 * The operator's hand on sweeping (docs/treasury.md): the networks the policy names, each paused or not, and the
 * plan of what would be swept now. A pause is stored, so every process stops planning sweeps for the network until
 * it is resumed; sweeps already sent are followed to their end either way (money in flight is never abandoned).
 */
export class Treasury {
  constructor(
    private readonly db: Database,
    readonly policy: TreasuryPolicy,
    private readonly clock: Clock,
    private readonly catalog: Catalog,
    /** The live networks whose chains are read, with their hot wallets. */
    private readonly chains: readonly ReconciledNetwork[],
    private readonly fees: NetworkFees,
    private readonly prices: PriceSource,
    private readonly priceMaxAgeSeconds: number,
  ) {}

  async networks(): Promise<TreasuryNetwork[]> {
    const pauses = await this.pauses();
    return this.policy.networks().map((policy) => ({ policy, pause: pauses.get(policy.network) ?? null }));
  }

  async pause(network: string, reason: string | undefined): Promise<TreasuryNetwork> {
    const policy = this.named(network);
    return { policy, pause: await pauseTreasury(this.db, network, reason ?? 'paused by the operator', this.clock.now()) };
  }

  async resume(network: string): Promise<TreasuryNetwork> {
    const policy = this.named(network);
    await resumeTreasury(this.db, network);
    return { policy, pause: null };
  }

  /**
   * What would be swept now, per network and asset of the policy (of `network` alone): the chain read at one block,
   * nothing sent. A paused network is planned too, so the operator sees what resuming would do.
   */
  async plan(network?: string): Promise<AssetPlan[]> {
    return this.planAndStore(network === undefined ? this.policy.networks() : [this.named(network)]);
  }

  /**
   * The periodic job: plans each network whose latest plan is older than its sweep_every_seconds (every process
   * with workers runs it; the interval, not their number, sets how often the chain is read). Answers the plans made.
   */
  async planDue(): Promise<AssetPlan[]> {
    const latest = await treasuryStatus(this.db);
    const now = this.clock.now().getTime();
    const due = this.policy.networks().filter((network) => {
      // Pairs the policy no longer names are not waited for: the plan forgets them.
      const checked = latest.filter((row) => row.network === network.network && network.assets.has(row.asset)).map((row) => row.checked_at.getTime());
      // A little early counts as due: two processes' timers drift, and the second must not always skip a round.
      return checked.length < network.assets.size || now - Math.min(...checked) >= network.sweepEverySeconds * 900;
    });
    return due.length === 0 ? [] : this.planAndStore(due);
  }

  /** The latest plan of each network and asset of the policy (of `network` alone), as stored; nothing is read on chain. */
  async status(network?: string): Promise<TreasuryStatus[]> {
    const policies = network === undefined ? this.policy.networks() : [this.named(network)];
    const [pauses, rows] = await Promise.all([this.pauses(), treasuryStatus(this.db, network)]);
    return policies.flatMap((policy) =>
      [...policy.assets.values()].map((asset) => ({
        policy: asset,
        pause: pauses.get(policy.network) ?? null,
        latest: rows.find((row) => row.network === asset.network && row.asset === asset.asset) ?? null,
      })),
    );
  }

  private async planAndStore(policies: readonly NetworkPolicy[]): Promise<AssetPlan[]> {
    const pauses = await this.pauses();
    const plans = (await Promise.all(policies.map((policy) => this.planNetwork(policy, pauses.get(policy.network) ?? null)))).flat();
    const at = this.clock.now();
    await this.db.transaction(async (tx) => {
      await forgetTreasuryStatusOutside(tx, this.policy.networks().flatMap((network) => [...network.assets.values()]));
      for (const plan of plans) {
        const row = { network: plan.policy.network, asset: plan.policy.asset, error: plan.error, summary: summaryOf(plan), floatLevel: plan.plan?.float.level ?? null };
        await saveTreasuryStatus(tx, row, at);
      }
    });
    return plans;
  }

  private async planNetwork(policy: NetworkPolicy, pause: TreasuryPause | null): Promise<AssetPlan[]> {
    const assets = [...policy.assets.values()];
    const chain = this.chains.find((c) => c.network === policy.network);
    const hotWallet = chain?.hotWallet ?? null;
    const unplanned = (asset: AssetPolicy, error: string, coldBalance: Decimal | null = null): AssetPlan =>
      ({ policy: asset, pause, hotWallet, error, plan: null, depositAddresses: null, coldBalance });
    if (!chain) return assets.map((asset) => unplanned(asset, `${policy.network} is not a live network of this deployment: no RPC URL is set for it, so its chain is not read`));
    if (hotWallet === null) return assets.map((asset) => unplanned(asset, `no hot wallet is configured for ${policy.network}: sweeps would have no float to fill`));
    const [rows, owed] = await Promise.all([liveAddressesOn(this.db, policy.network), owedByPendingPayouts(this.db, policy.network)]);
    const addresses = [...new Set(rows.map((row) => row.address))];
    const colds = [...new Set(assets.flatMap((asset) => (asset.coldAddress === null ? [] : [asset.coldAddress])))];
    const chainAssets = chainAssetsOn(this.catalog, policy.network).filter(({ asset }) => policy.assets.has(asset));
    // One read of every holder at one block: deposit addresses, then the hot wallet, then the cold addresses.
    const balances = await readChainBalances(this.db, this.catalog, chain, chainAssets, [...addresses, hotWallet, ...colds]);
    const snapshot = await this.prices.current();
    const network = this.catalog.network(policy.network)!;
    return assets.map((asset): AssetPlan => {
      const read = balances.get(asset.asset)!;
      if (!Array.isArray(read)) return unplanned(asset, read.error);
      const { decimals } = chainAssets.find((a) => a.asset === asset.asset)!;
      const onChain = read.map((units) => fromBaseUnits(units, decimals));
      const coldBalance = asset.coldAddress === null ? null : onChain[addresses.length + 1 + colds.indexOf(asset.coldAddress)]!;
      const costUsd = sweepCostUsd(this.fees, network, asset.asset);
      if (costUsd === null) return unplanned(asset, `network-fees.json has no estimate for ${asset.asset} on ${policy.network}`, coldBalance);
      const usd = usdPerUnit(asset.asset, snapshot, this.clock.now(), this.priceMaxAgeSeconds);
      if (usd === null) return unplanned(asset, `no fresh ${asset.asset} price: what a sweep costs cannot be weighed against what it moves`, coldBalance);
      const cost = costUsd.div(usd).toDecimalPlaces(decimals, Decimal.ROUND_UP);
      const { holdings, depositAddresses } = sweepable(addresses, onChain, creditedByAddress(rows, asset.asset));
      const hot = { balance: onChain[addresses.length]!, incoming: ZERO, owed: new Decimal(owed.get(asset.asset) ?? 0) };
      const plan = planSweeps(asset, holdings, hot, () => cost, asset.asset === network.native_asset);
      return { policy: asset, pause, hotWallet, error: null, plan, depositAddresses, coldBalance };
    });
  }

  private async pauses(): Promise<Map<string, TreasuryPause>> {
    return new Map((await treasuryPauses(this.db)).map((pause) => [pause.network, pause]));
  }

  private named(network: string): NetworkPolicy {
    const policy = this.policy.network(network);
    if (!policy) {
      const named = this.policy.networks().map((n) => n.network).join(', ') || 'none (CONNECT_TREASURY_FILE is not set)';
      throw new DomainError('resource_not_found', `${network} is not a network of the treasury policy (those: ${named}).`, 'network');
    }
    return policy;
  }
}
