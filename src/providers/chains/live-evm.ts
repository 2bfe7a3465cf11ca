import type { EvmConfig, EvmSignerConfig } from '../../config.js';
import type { Catalog } from '../../domain/catalog.js';
import { localSigner, remoteSigner, signerKeyFromFile, type EvmSigner } from './evm-signer.js';
import { EvmXpub } from './evm-xpub.js';
import { rpcNetworks } from './rpc-networks.js';

/** The live EVM setup a deployment runs with: the xpub and the networks that have a JSON-RPC endpoint. */
export interface LiveEvm {
  xpub: EvmXpub;
  /** Network code → JSON-RPC URL. */
  rpcUrls: ReadonlyMap<string, string>;
  /** The hot wallet of live payouts; null: live payouts are refused. */
  signer: EvmSigner | null;
}

function signerFrom(config: EvmSignerConfig, timeoutMs: number): EvmSigner {
  if ('key' in config) return localSigner(config.key);
  if ('keyFile' in config) return signerKeyFromFile(config.keyFile);
  return remoteSigner(config.url, config.address, timeoutMs);
}

/** Checks the EVM settings against the catalog at start; null when no network is configured (live EVM is off). */
export function liveEvmFrom(config: EvmConfig, catalog: Catalog): LiveEvm | null {
  if (Object.keys(config.rpcUrls).length === 0 || config.xpub === undefined) return null;
  const rpcUrls = rpcNetworks(config.rpcUrls, catalog, 'CONNECT_EVM_RPC_', 'evm', 'an EVM');
  return { xpub: EvmXpub.parse(config.xpub), rpcUrls, signer: config.signer && signerFrom(config.signer, config.rpcTimeoutMs) };
}
