import { BaseError, ContractFunctionZeroDataError, createPublicClient, erc20Abi, http, type Address } from 'viem';
import type { Catalog } from '../../domain/catalog.js';
import { hidingEndpoint } from './rpc-errors.js';
import { evmHexFromTronAddress } from './tron/address.js';

/** A token contract the chain does not have (a test chain, a catalog entry ahead of a deployment) holds nothing for anybody. */
function noContract(error: unknown): bigint {
  if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionZeroDataError)) return 0n;
  throw error;
}

/** Whether the chain shows an address as used on any of the family's live networks. */
export type AddressUsed = (address: string) => Promise<boolean>;

interface ActivityOptions {
  /** Network code → JSON-RPC URL. */
  rpcUrls: ReadonlyMap<string, string>;
  catalog: Catalog;
  /** How the family writes an address on the wire: EVM as it is, Tron as the 0x form its JSON-RPC speaks. */
  family: 'evm' | 'tron';
  /** Network code → headers every call to its node carries (a provider's API key). */
  headers?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/**
 * Reads, on every live network of the family, what an address that was handed out and paid leaves on chain: a
 * native balance, a balance of a catalog token, and on EVM a nonce (an address the operator swept has sent). A
 * fresh address has none of them; an address with any was used by some database, whatever this one says.
 * Tron's JSON-RPC has no nonce: a swept Tron address shows nothing, which the docs say.
 */
export function addressActivity({ rpcUrls, catalog, family, headers }: ActivityOptions): AddressUsed {
  const onWire = (address: string) => (family === 'tron' ? evmHexFromTronAddress(address) : (address as Address));
  const networks = [...rpcUrls].map(([network, url]) => ({
    client: createPublicClient({ transport: http(url, { retryCount: 1, fetchOptions: { headers: { ...headers?.get(network) } } }), cacheTime: 0 }),
    tokens: catalog.data.assets.flatMap((a) => a.networks.filter((n) => n.network === network && n.active && n.token_contract).map((n) => onWire(n.token_contract!))),
  }));
  return hidingEndpoint(async (address: string) => {
    const account = onWire(address);
    const answers = await Promise.all(
      networks.flatMap(({ client, tokens }) => [
        client.getBalance({ address: account }),
        ...(family === 'evm' ? [client.getTransactionCount({ address: account }).then(BigInt)] : []),
        ...tokens.map((token) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account] }).catch(noContract)),
      ]),
    );
    return answers.some((value) => value > 0n);
  });
}
