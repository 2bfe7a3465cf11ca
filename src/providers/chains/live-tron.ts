import type { TronConfig, TronPayoutsConfig } from '../../config.js';
import type { Catalog } from '../../domain/catalog.js';
import { rpcNetworks } from './rpc-networks.js';
import { localTronSigner, tronSignerKeyFromFile, type TronSigner } from './tron/signer.js';
import { TronXpub } from './tron/xpub.js';

/** The live Tron setup a deployment runs with: the xpub and the networks that have a JSON-RPC endpoint. */
export interface LiveTron {
  xpub: TronXpub;
  /** Network code → the node's Ethereum-compatible JSON-RPC URL. */
  rpcUrls: ReadonlyMap<string, string>;
  /** Network code → the node's HTTP API, which tells TRX transfers from TRC-10 ones and takes payouts. */
  apiUrls: ReadonlyMap<string, string>;
  /** The hot wallet of live Tron payouts; null: they are refused. */
  signer: TronSigner | null;
  /** Network code → the headers every call to its nodes carries (TronGrid's API key); absent: none. */
  headers: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** The header TronGrid reads its API key from (https://developers.tron.network/reference/select-network). */
export const TRON_API_KEY_HEADER = 'TRON-PRO-API-KEY';

/**
 * Checks the Tron settings against the catalog at start; null when no network is configured (live Tron is off).
 * `payouts.httpUrls` are the nodes' HTTP APIs (CONNECT_TRON_HTTP_<NETWORK>), which payouts use too.
 */
export function liveTronFrom(config: TronConfig, payouts: TronPayoutsConfig, catalog: Catalog): LiveTron | null {
  if (Object.keys(config.rpcUrls).length === 0 || config.xpub === undefined) return null;
  const rpcUrls = rpcNetworks(config.rpcUrls, catalog, 'CONNECT_TRON_RPC_', 'tron', 'a Tron');
  const apiUrls = new Map([...rpcUrls].map(([network, rpcUrl]) => [network, payouts.httpUrls[network] ?? apiUrlOf(network, rpcUrl)]));
  const signer = payouts.signer && ('key' in payouts.signer ? localTronSigner(payouts.signer.key) : tronSignerKeyFromFile(payouts.signer.keyFile));
  const unknown = Object.keys(config.apiKeys ?? {}).filter((network) => !rpcUrls.has(network));
  if (unknown.length > 0) throw new Error(`${unknown.map((n) => `CONNECT_TRON_API_KEY_${variableName(n)}`).join(', ')} set for a network without CONNECT_TRON_RPC_<NETWORK>`);
  const headers = new Map(Object.entries(config.apiKeys ?? {}).map(([network, key]) => [network, { [TRON_API_KEY_HEADER]: key }]));
  return { xpub: TronXpub.parse(config.xpub), rpcUrls, apiUrls, signer, headers };
}

const variableName = (network: string) => network.toUpperCase().replaceAll('-', '_');

/** Providers (TronGrid and most others) serve the HTTP API where the JSON-RPC URL is, without its `/jsonrpc`. */
function apiUrlOf(network: string, rpcUrl: string): string {
  const url = new URL(rpcUrl);
  if (!/\/jsonrpc\/?$/.test(url.pathname)) {
    throw new Error(
      `CONNECT_TRON_RPC_${variableName(network)} does not end in /jsonrpc: set CONNECT_TRON_HTTP_${variableName(network)} to the node's HTTP API ` +
        '(TRX deposits are told apart from TRC-10 ones through it)',
    );
  }
  url.pathname = url.pathname.replace(/\/jsonrpc\/?$/, '');
  return url.toString();
}
