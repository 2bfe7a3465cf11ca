import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Catalog, Network } from './catalog.js';
import { Decimal } from './money.js';

const Amount = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$', maxLength: 64 });

const AssetPolicySchema = Type.Object(
  {
    float_target: Type.String({ ...Amount, description: 'What the hot wallet should hold of the asset: sweeps fill it up to this.' }),
    float_low: Type.String({ ...Amount, description: 'Below this the float is low: sweeps run at once, /readyz and the metrics say so.' }),
    float_high: Type.String({ ...Amount, description: 'No sweep takes the hot wallet above this; what would goes to cold storage.' }),
    cold_address: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Watch-only address that receives what the float does not need.' })),
    min_sweep: Type.String({ ...Amount, description: 'A deposit address holding less is not swept.' }),
    max_cost_share: Type.String({ ...Amount, description: 'A sweep whose cost exceeds this share of what it moves (0.01 = 1%) is not made.' }),
  },
  { additionalProperties: false },
);

const NetworkPolicySchema = Type.Object(
  {
    sweep_every_seconds: Type.Integer({ minimum: 60, maximum: 86_400, description: 'Seconds between two sweep plans of the network.' }),
    max_fee_per_sweep: Type.Optional(
      Type.String({
        ...Amount,
        description:
          "The most one sweep may spend on fees, in the network's native coin: bounds each top-up the hot wallet sends a deposit address and the fee of each transaction a deposit address signs. Absent: the signer signs nothing for the network.",
      }),
    ),
    max_fees_per_day: Type.Optional(
      Type.String({
        ...Amount,
        description:
          "The most the signer lets the network's sweeps spend on fees and top-ups in one UTC day, in its native coin: what bounds a compromised API host. Absent: the signer signs nothing for the network.",
      }),
    ),
    assets: Type.Record(Type.String({ pattern: '^[A-Z0-9]{2,10}$' }), AssetPolicySchema, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

/** Network code → that network's sweeping: the file CONNECT_TREASURY_FILE names (docs/treasury.md). */
export const TreasuryFileSchema = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), NetworkPolicySchema, {
  additionalProperties: false,
});
type TreasuryFile = Static<typeof TreasuryFileSchema>;

/** What the operator allows of one asset on one network. */
export interface AssetPolicy {
  network: string;
  asset: string;
  floatTarget: Decimal;
  floatLow: Decimal;
  floatHigh: Decimal;
  coldAddress: string | null;
  minSweep: Decimal;
  maxCostShare: Decimal;
}

export interface NetworkPolicy {
  network: string;
  sweepEverySeconds: number;
  /** In the native coin; null: no top-up or deposit transaction is signed on the network. */
  maxFeePerSweep: Decimal | null;
  /** In the native coin, per UTC day, fees and top-ups together; null: as maxFeePerSweep. */
  maxFeesPerDay: Decimal | null;
  assets: ReadonlyMap<string, AssetPolicy>;
}

/** Whether `address` is a standard address of the network's format (the address codecs, outside the domain). */
export type DestinationCheck = (format: Network['address_format'], address: string) => boolean;

/**
 * The operator's treasury policy: per network and asset, the hot wallet's float and where sweeps of deposit
 * addresses go. Nothing is swept on a network or of an asset the policy does not name. Checked whole at start
 * against the catalog: a mistake in it refuses the start, naming every problem, instead of moving money wrongly.
 */
export class TreasuryPolicy {
  private constructor(private readonly byNetwork: ReadonlyMap<string, NetworkPolicy>) {}

  static readonly NONE = new TreasuryPolicy(new Map());

  /** The policy in `file`, or none (nothing is swept) when no file is given. */
  static load(file: string | undefined, catalog: Catalog, isDestination: DestinationCheck): TreasuryPolicy {
    if (file === undefined) return TreasuryPolicy.NONE;
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      if (error instanceof SyntaxError) throw new Error(`Invalid treasury policy ${file}: not JSON (${error.message})`, { cause: error });
      throw new Error(`Cannot read the treasury policy ${file}: ${(error as Error).message}`, { cause: error });
    }
    return TreasuryPolicy.parse(raw, catalog, isDestination, file);
  }

  static parse(raw: unknown, catalog: Catalog, isDestination: DestinationCheck, name = 'policy'): TreasuryPolicy {
    const problems = [...Value.Errors(TreasuryFileSchema, raw)].map((e) => `${e.instancePath || '/'} ${e.message}`);
    if (problems.length > 0) throw new Error(`Invalid treasury policy ${name}: ${problems.join('; ')}`);
    const byNetwork = new Map<string, NetworkPolicy>();
    for (const [network, entry] of Object.entries(raw as TreasuryFile)) {
      const assets = new Map<string, AssetPolicy>();
      for (const [asset, given] of Object.entries(entry.assets)) {
        const policy = assetPolicy(network, asset, given);
        problems.push(...assetProblems(policy, catalog, isDestination));
        assets.set(asset, policy);
      }
      const known = catalog.network(network);
      if (!known) problems.push(`${network}: not a catalog network`);
      const maxFeePerSweep = entry.max_fee_per_sweep === undefined ? null : new Decimal(entry.max_fee_per_sweep);
      const maxFeesPerDay = entry.max_fees_per_day === undefined ? null : new Decimal(entry.max_fees_per_day);
      const nativeDecimals = known && catalog.pair(known.native_asset, network)?.decimals;
      for (const [field, amount] of [['max_fee_per_sweep', maxFeePerSweep], ['max_fees_per_day', maxFeesPerDay]] as const) {
        if (amount && nativeDecimals !== undefined && amount.decimalPlaces() > nativeDecimals) {
          problems.push(`${network}: ${field} has more than ${known!.native_asset}'s ${nativeDecimals} decimals`);
        }
      }
      if (maxFeePerSweep && maxFeesPerDay && maxFeesPerDay.lt(maxFeePerSweep)) problems.push(`${network}: max_fees_per_day is below max_fee_per_sweep`);
      byNetwork.set(network, { network, sweepEverySeconds: entry.sweep_every_seconds, maxFeePerSweep, maxFeesPerDay, assets });
    }
    if (problems.length > 0) throw new Error(`Invalid treasury policy ${name}: ${problems.join('; ')}`);
    return new TreasuryPolicy(byNetwork);
  }

  networks(): NetworkPolicy[] {
    return [...this.byNetwork.values()];
  }

  network(code: string): NetworkPolicy | undefined {
    return this.byNetwork.get(code);
  }

  asset(network: string, asset: string): AssetPolicy | undefined {
    return this.byNetwork.get(network)?.assets.get(asset);
  }
}

function assetPolicy(network: string, asset: string, given: Static<typeof AssetPolicySchema>): AssetPolicy {
  return {
    network,
    asset,
    floatTarget: new Decimal(given.float_target),
    floatLow: new Decimal(given.float_low),
    floatHigh: new Decimal(given.float_high),
    coldAddress: given.cold_address ?? null,
    minSweep: new Decimal(given.min_sweep),
    maxCostShare: new Decimal(given.max_cost_share),
  };
}

function assetProblems(policy: AssetPolicy, catalog: Catalog, isDestination: DestinationCheck): string[] {
  const where = `${policy.network}/${policy.asset}`;
  const pair = catalog.pair(policy.asset, policy.network);
  if (!pair) return [`${where}: not a catalog pair`];
  const problems: string[] = [];
  const amounts = { float_target: policy.floatTarget, float_low: policy.floatLow, float_high: policy.floatHigh, min_sweep: policy.minSweep };
  for (const [field, amount] of Object.entries(amounts)) {
    if (amount.decimalPlaces() > pair.decimals) problems.push(`${where}: ${field} has more than the asset's ${pair.decimals} decimals`);
  }
  if (!(policy.floatLow.lte(policy.floatTarget) && policy.floatTarget.lte(policy.floatHigh))) {
    problems.push(`${where}: float_low ≤ float_target ≤ float_high must hold`);
  }
  if (policy.minSweep.isZero()) problems.push(`${where}: min_sweep must be above 0`);
  if (policy.maxCostShare.isZero() || policy.maxCostShare.gt(1)) problems.push(`${where}: max_cost_share must be above 0 and at most 1`);
  const network = catalog.network(policy.network);
  if (policy.coldAddress !== null && network && !isDestination(network.address_format, policy.coldAddress)) {
    problems.push(`${where}: cold_address is not a ${network.address_format} address`);
  }
  return problems;
}
