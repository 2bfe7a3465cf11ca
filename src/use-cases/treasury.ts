import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { Decimal, fromBaseUnits, ZERO } from '../domain/money.js';
import type { NetworkFees } from '../domain/network-fees.js';
import { planSweeps, sweepCostUsd, type Holding, type SweepPlan } from '../domain/treasury-plan.js';
import type { AssetPolicy, NetworkPolicy, TreasuryPolicy } from '../domain/treasury-policy.js';
import { usdPerUnit } from '../domain/valuation.js';
import type { ReconciledNetwork } from '../providers/chains/balances.js';
import type { PriceSource } from '../providers/prices/price-source.js';
import type { Database } from '../store/database.js';
import { liveAddressesOn, type LiveAddressRow } from '../store/reconciliation.js';
import { pauseTreasury, resumeTreasury, treasuryPauses, type TreasuryPause } from '../store/treasury.js';
import { chainAssetsOn, readChainBalances } from './chain-balances.js';

/** One network of the treasury policy, and whether its sweeping is paused. */
export interface TreasuryNetwork {
  policy: NetworkPolicy;
  pause: TreasuryPause | null;
}

/** What the deposit addresses of a network hold of one asset, read on chain. */
export interface DepositHoldings {
  /** Addresses holding any of the asset. */
  count: number;
  onChain: Decimal;
  /** On chain and not credited: deposits waiting for confirmations or quarantined, and money no deposit explains. */
  notCredited: Decimal;
}

/**
 * The sweeps one asset of one network would get now, and what they were planned from; `error` says why no plan
 * could be made (the chain could not be read, no hot wallet, no fresh price), and then the chain's figures are null.
 */
export interface AssetPlan {
  policy: AssetPolicy;
  pause: TreasuryPause | null;
  hotWallet: string | null;
  error: string | null;
  plan: SweepPlan | null;
  depositAddresses: DepositHoldings | null;
  /** What the cold address holds (null: not read). */
  coldBalance: Decimal | null;
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
    const policies = network === undefined ? this.policy.networks() : [this.named(network)];
    const pauses = await this.pauses();
    return (await Promise.all(policies.map((policy) => this.planNetwork(policy, pauses.get(policy.network) ?? null)))).flat();
  }

  private async planNetwork(policy: NetworkPolicy, pause: TreasuryPause | null): Promise<AssetPlan[]> {
    const assets = [...policy.assets.values()];
    const chain = this.chains.find((c) => c.network === policy.network);
    const hotWallet = chain?.hotWallet ?? null;
    const unplanned = (asset: AssetPolicy, error: string, coldBalance: Decimal | null = null): AssetPlan =>
      ({ policy: asset, pause, hotWallet, error, plan: null, depositAddresses: null, coldBalance });
    if (!chain) return assets.map((asset) => unplanned(asset, `${policy.network} is not a live network of this deployment: no RPC URL is set for it, so its chain is not read`));
    if (hotWallet === null) return assets.map((asset) => unplanned(asset, `no hot wallet is configured for ${policy.network}: sweeps would have no float to fill`));
    const rows = await liveAddressesOn(this.db, policy.network);
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
      const hot = { balance: onChain[addresses.length]!, incoming: ZERO };
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
