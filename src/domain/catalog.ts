import fs from 'node:fs';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { KeyMode } from './api-keys.js';
import { isPairDisabled, type OrganizationSettings } from './organizations.js';

const DecimalString = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' });

export const NetworkSchema = Type.Object(
  {
    code: Type.String({ pattern: '^[a-z][a-z0-9-]*$' }),
    name: Type.String(),
    address_format: Type.Union([Type.Literal('evm'), Type.Literal('tron'), Type.Literal('solana'), Type.Literal('bitcoin')]),
    native_asset: Type.String(),
    chain_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description:
        "The chain id a network's JSON-RPC endpoint answers to eth_chainId: EIP-155 for an EVM network (what wallets sign for), " +
        'the last 4 bytes of the genesis block id for Tron; null for Solana and Bitcoin.',
    }),
  },
  { additionalProperties: false },
);

export const AssetNetworkSchema = Type.Object(
  {
    network: Type.String({ description: 'Lowercase network code.' }),
    decimals: Type.Integer({ minimum: 0, maximum: 36 }),
    token_contract: Type.Union([Type.String(), Type.Null()], {
      description: 'Token contract (EVM, Tron) or mint (Solana); null for the native asset.',
    }),
    confirmations_required: Type.Integer({ minimum: 1 }),
    min_amount: Type.String({ ...DecimalString, description: 'Smallest deposit credited, decimal string.' }),
    active: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const AssetSchema = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z0-9]{2,10}$' }),
    name: Type.String(),
    max_amount: Type.String({ ...DecimalString, description: 'Largest amount one request may name (intent, deposit simulation), decimal string.' }),
    networks: Type.Array(AssetNetworkSchema, { description: 'In priority order: intents expand in this order.' }),
  },
  { additionalProperties: false },
);

export const FiatCurrencySchema = Type.Object(
  { code: Type.String({ pattern: '^[A-Z]{3}$' }), name: Type.String(), decimals: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);

const CatalogFileSchema = Type.Object(
  {
    networks: Type.Array(NetworkSchema),
    assets: Type.Array(AssetSchema),
    fiat_currencies: Type.Array(FiatCurrencySchema),
  },
  { additionalProperties: false },
);

export type CatalogData = Static<typeof CatalogFileSchema>;
export type Asset = Static<typeof AssetSchema>;
export type AssetNetwork = Static<typeof AssetNetworkSchema>;
export type Network = Static<typeof NetworkSchema>;

const DEFAULT_CATALOG = new URL('./catalog.json', import.meta.url);

/** Address formats whose nodes serve Ethereum's JSON-RPC, so each such network names the chain id its endpoint must answer. */
const JSON_RPC_FORMATS: ReadonlySet<Network['address_format']> = new Set(['evm', 'tron']);

/** The assets, networks and fiat currencies this deployment supports; loaded from data, checked at start. */
export class Catalog {
  /**
   * @param liveNetworks the networks live keys may use: those with a configured chain watcher (a live address
   * nobody watches would take money that is never credited). Sandbox keys use every network.
   */
  private constructor(
    readonly data: CatalogData,
    private readonly liveNetworks: ReadonlySet<string> = new Set(),
  ) {}

  /** The same catalog, with live keys limited to `networks`. */
  withLiveNetworks(networks: Iterable<string>): Catalog {
    return new Catalog(this.data, new Set(networks));
  }

  /** Whether keys of `mode` may use the network at all. */
  offersNetwork(mode: KeyMode, network: string): boolean {
    return mode === 'test' || this.liveNetworks.has(network);
  }

  static load(file?: string): Catalog {
    const raw: unknown = JSON.parse(fs.readFileSync(file ?? DEFAULT_CATALOG, 'utf8'));
    const problems = [...Value.Errors(CatalogFileSchema, raw)].map((e) => `${e.instancePath || '/'} ${e.message}`);
    if (problems.length > 0) throw new Error(`Invalid catalog ${file ?? 'catalog.json'}: ${problems.join('; ')}`);
    const data = raw as CatalogData;
    for (const network of data.networks) {
      // Live watchers and payouts check their JSON-RPC endpoint serves this chain: money never moves on another.
      const servedOverJsonRpc = JSON_RPC_FORMATS.has(network.address_format);
      if (servedOverJsonRpc !== (network.chain_id !== null)) {
        throw new Error(
          `Catalog: ${network.code} needs a chain_id ${servedOverJsonRpc ? `(its ${network.address_format} node answers eth_chainId)` : `of null (${network.address_format} has none)`}`,
        );
      }
    }
    const networks = new Set(data.networks.map((n) => n.code));
    for (const asset of data.assets) {
      for (const entry of asset.networks) {
        if (!networks.has(entry.network)) throw new Error(`Catalog: ${asset.code} names unknown network ${entry.network}`);
        const fraction = entry.min_amount.split('.')[1] ?? '';
        if (fraction.length > entry.decimals) {
          throw new Error(`Catalog: ${asset.code}/${entry.network} min_amount has more than ${entry.decimals} decimals`);
        }
      }
    }
    return new Catalog(data);
  }

  /** What one organization may use in a mode: every offered pair except those its settings disable, in priority order. */
  forOrganization(settings: OrganizationSettings, mode: KeyMode): Asset[] {
    return this.data.assets
      .map((asset) => ({
        ...asset,
        networks: asset.networks.filter((n) => this.offersNetwork(mode, n.network) && !isPairDisabled(settings, { asset: asset.code, network: n.network })),
      }))
      .filter((asset) => asset.networks.length > 0);
  }

  /** The networks an intent in `asset` expands to for this organization and mode: active, offered, enabled, in priority order. */
  activeNetworks(settings: OrganizationSettings, mode: KeyMode, asset: string): AssetNetwork[] {
    const entry = this.data.assets.find((a) => a.code === asset);
    return (entry?.networks ?? []).filter(
      (n) => n.active && this.offersNetwork(mode, n.network) && !isPairDisabled(settings, { asset, network: n.network }),
    );
  }

  asset(code: string): Asset | undefined {
    return this.data.assets.find((a) => a.code === code);
  }

  pair(asset: string, network: string): AssetNetwork | undefined {
    return this.data.assets.find((a) => a.code === asset)?.networks.find((n) => n.network === network);
  }

  network(code: string): Network | undefined {
    return this.data.networks.find((n) => n.code === code);
  }

  addressFormat(network: string): Network['address_format'] {
    return this.data.networks.find((n) => n.code === network)!.address_format;
  }

  hasPair(asset: string, network: string): boolean {
    return this.pair(asset, network) !== undefined;
  }
}
