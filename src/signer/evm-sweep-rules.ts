import { decodeFunctionData, encodeFunctionData, erc20Abi, getAddress, isAddress, parseUnits, type Address, type Hex } from 'viem';
import type { Catalog } from '../domain/catalog.js';
import type { TreasuryPolicy } from '../domain/treasury-policy.js';

/** A transaction the service asks the signer to sign; the signer adds the chain id and the key, nothing else. */
export interface EvmSignRequest {
  network: string;
  /** `sweep`: from deposit address `index` to the hot wallet or a cold address; `top_up`: gas from the gas account to deposit address `index`. */
  kind: 'sweep' | 'top_up';
  index: number;
  transaction: { to: Address; data: Hex; value: bigint; gas: bigint; nonce: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
}

/** What the signer allows on one EVM network, all of it from its own files: never from the service that asks. */
export interface EvmNetworkRules {
  network: string;
  chainId: number;
  hotWallet: Address;
  /** Token contract (lower case) → asset, for the assets of the policy on the network. */
  tokens: ReadonlyMap<string, string>;
  /** The native coin, when the policy sweeps it; null: it does not. */
  nativeAsset: string | null;
  /** Asset → its cold address, where the policy names one. */
  cold: ReadonlyMap<string, Address>;
  /** The most one sweep transaction or top-up may spend on fees, and the most a top-up may carry, in wei. */
  maxFeeWei: bigint;
  /** The most the network's signed transactions may spend in a UTC day, fees at their cap and top-ups, in wei. */
  maxFeesPerDayWei: bigint;
}

/**
 * The rules of every EVM network of the treasury policy that has max_fee_per_sweep and max_fees_per_day: its chain
 * id and token contracts from the catalog, its destinations from the policy. A network without both bounds gets no
 * rules: nothing is signed on it.
 */
export function evmNetworkRules(policy: TreasuryPolicy, catalog: Catalog, hotWallet: Address): Map<string, EvmNetworkRules> {
  const rules = new Map<string, EvmNetworkRules>();
  for (const network of policy.networks()) {
    const entry = catalog.network(network.network)!;
    if (entry.address_format !== 'evm' || entry.chain_id === null || network.maxFeePerSweep === null || network.maxFeesPerDay === null) continue;
    const tokens = new Map<string, string>();
    const cold = new Map<string, Address>();
    for (const asset of network.assets.values()) {
      const contract = catalog.pair(asset.asset, network.network)!.token_contract;
      if (contract !== null) tokens.set(contract.toLowerCase(), asset.asset);
      if (asset.coldAddress !== null) cold.set(asset.asset, getAddress(asset.coldAddress));
    }
    const decimals = catalog.pair(entry.native_asset, network.network)!.decimals;
    rules.set(network.network, {
      network: network.network,
      chainId: entry.chain_id,
      hotWallet,
      tokens,
      nativeAsset: network.assets.has(entry.native_asset) ? entry.native_asset : null,
      cold,
      maxFeeWei: parseUnits(network.maxFeePerSweep.toFixed(), decimals),
      maxFeesPerDayWei: parseUnits(network.maxFeesPerDay.toFixed(), decimals),
    });
  }
  return rules;
}

const EMPTY = (data: Hex) => data === '0x';

/** Whether `to` is where a sweep of `asset` may go: the hot wallet, or the asset's cold address. */
function isDestination(rules: EvmNetworkRules, asset: string, to: Address): boolean {
  const target = to.toLowerCase();
  return target === rules.hotWallet.toLowerCase() || target === rules.cold.get(asset)?.toLowerCase();
}

/**
 * The recipient and amount of an ERC-20 `transfer` call, or null for anything else: another function, or bytes
 * beyond the call's own (which a token could read), since the call is encoded again and compared whole.
 */
function tokenTransfer(data: Hex): { recipient: Address; amount: bigint } | null {
  try {
    const call = decodeFunctionData({ abi: erc20Abi, data });
    if (call.functionName !== 'transfer') return null;
    const [recipient, amount] = call.args;
    const again = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] });
    return again.toLowerCase() === data.toLowerCase() ? { recipient, amount } : null;
  } catch {
    return null;
  }
}

/** What signing `request` can cost its network at most: the fee at its cap, and for a top-up the coin it carries. */
export const worstCost = ({ kind, transaction: tx }: EvmSignRequest): bigint => tx.gas * tx.maxFeePerGas + (kind === 'top_up' ? tx.value : 0n);

/**
 * Why the signer refuses to sign `request`, or null when its policy allows it (docs/treasury.md, "The signer"):
 * a sweep moves a policy asset from a deposit address to the hot wallet or that asset's cold address, a top-up
 * sends a deposit address at most max_fee_per_sweep of the native coin, and no transaction may spend more than that
 * on fees. `depositAddress` derives the address of a deposit index from the signer's own seed.
 */
export function evmRefusal(request: EvmSignRequest, rules: EvmNetworkRules | undefined, depositAddress: (index: number) => Address): string | null {
  if (!rules) return `${request.network} is not an EVM network of the treasury policy with max_fee_per_sweep and max_fees_per_day set: nothing is signed on it`;
  const tx = request.transaction;
  if (!isAddress(tx.to, { strict: false })) return 'the transaction has no valid recipient';
  if (tx.maxPriorityFeePerGas > tx.maxFeePerGas) return 'its priority fee is above its max fee';
  if (tx.gas * tx.maxFeePerGas > rules.maxFeeWei) return `its fee can reach ${tx.gas * tx.maxFeePerGas} wei, above max_fee_per_sweep (${rules.maxFeeWei} wei)`;
  if (request.kind === 'top_up') {
    if (tx.to.toLowerCase() !== depositAddress(request.index).toLowerCase()) return `a top-up goes only to deposit address ${request.index}, ${depositAddress(request.index)}`;
    if (!EMPTY(tx.data)) return 'a top-up carries no call data';
    if (tx.value <= 0n || tx.value > rules.maxFeeWei) return `a top-up carries more than 0 and at most max_fee_per_sweep (${rules.maxFeeWei} wei)`;
    return null;
  }
  if (EMPTY(tx.data)) {
    if (rules.nativeAsset === null) return "the policy does not sweep the network's native coin";
    // A sweep never spends more on its fee than it moves: small native sweeps cannot burn a deposit into fees.
    if (tx.value < tx.gas * tx.maxFeePerGas || tx.value === 0n) return 'a native sweep moves more than its fee can cost';
    return isDestination(rules, rules.nativeAsset, tx.to) ? null : `${tx.to} is neither the hot wallet nor the ${rules.nativeAsset} cold address`;
  }
  const asset = rules.tokens.get(tx.to.toLowerCase());
  if (asset === undefined) return `${tx.to} is not the contract of an asset the policy sweeps on ${request.network}`;
  if (tx.value !== 0n) return 'a token sweep sends no native coin';
  const transfer = tokenTransfer(tx.data);
  if (!transfer) return 'a token sweep is one ERC-20 transfer call, nothing else';
  if (transfer.amount === 0n) return 'a token sweep moves more than 0';
  return isDestination(rules, asset, transfer.recipient) ? null : `${transfer.recipient} is neither the hot wallet nor the ${asset} cold address`;
}
