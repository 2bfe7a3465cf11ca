import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { Catalog } from './catalog.js';
import { Decimal } from './money.js';

const DecimalString = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$', maxLength: 64 });

const NetworkFeeSchema = Type.Object(
  {
    fee_usd: Type.String({ ...DecimalString, description: 'Network fee of one outgoing transfer, in USD, decimal string.' }),
    estimated_seconds: Type.Integer({ minimum: 1, description: 'Typical time until the transfer has the confirmations it needs.' }),
  },
  { additionalProperties: false },
);

/** Asset code → network code → fee, for every active catalog pair. */
const NetworkFeesFileSchema = Type.Record(
  Type.String({ pattern: '^[A-Z0-9]{2,10}$' }),
  Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), NetworkFeeSchema, { additionalProperties: false }),
  { additionalProperties: false },
);

type NetworkFeesFile = Static<typeof NetworkFeesFileSchema>;

export interface NetworkFee {
  feeUsd: Decimal;
  estimatedSeconds: number;
}

const DEFAULT_NETWORK_FEES = new URL('./network-fees.json', import.meta.url);

/**
 * What one outgoing transfer costs and takes per (asset, network): estimates for payout quotes and route
 * comparisons, not live gas prices. Data like the catalog, checked against it at load: every active pair has
 * a fee (a quote on it must be possible) and every entry names a catalog pair (a typo would hide a missing one).
 */
export class NetworkFees {
  private constructor(private readonly byPair: ReadonlyMap<string, NetworkFee>) {}

  static load(file: string | undefined, catalog: Catalog): NetworkFees {
    const name = file ?? 'network-fees.json';
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(file ?? DEFAULT_NETWORK_FEES, 'utf8'));
    } catch (error) {
      if (error instanceof SyntaxError) throw new Error(`Invalid network fees ${name}: not JSON (${error.message})`, { cause: error });
      throw error;
    }
    const problems = [...Value.Errors(NetworkFeesFileSchema, raw)].map((e) => `${e.instancePath || '/'} ${e.message}`);
    if (problems.length === 0) problems.push(...catalogProblems(raw as NetworkFeesFile, catalog));
    if (problems.length > 0) throw new Error(`Invalid network fees ${name}: ${problems.join('; ')}`);
    const byPair = new Map<string, NetworkFee>();
    for (const [asset, networks] of Object.entries(raw as NetworkFeesFile)) {
      for (const [network, entry] of Object.entries(networks)) {
        byPair.set(pairKey(asset, network), { feeUsd: new Decimal(entry.fee_usd), estimatedSeconds: entry.estimated_seconds });
      }
    }
    return new NetworkFees(byPair);
  }

  /** Undefined only for a pair the catalog lacks or has inactive without a fee. */
  fee(asset: string, network: string): NetworkFee | undefined {
    return this.byPair.get(pairKey(asset, network));
  }
}

const pairKey = (asset: string, network: string) => `${asset}/${network}`;

function catalogProblems(fees: NetworkFeesFile, catalog: Catalog): string[] {
  const problems: string[] = [];
  for (const [asset, networks] of Object.entries(fees)) {
    for (const network of Object.keys(networks)) {
      if (!catalog.hasPair(asset, network)) problems.push(`${asset}/${network} is not a catalog pair`);
    }
  }
  for (const asset of catalog.data.assets) {
    for (const entry of asset.networks) {
      if (entry.active && fees[asset.code]?.[entry.network] === undefined) problems.push(`no fee for ${asset.code}/${entry.network}`);
    }
  }
  return problems;
}
