import {
  BaseError,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  ExecutionRevertedError,
  http,
  HttpRequestError,
  InsufficientFundsError,
  keccak256,
  parseTransaction,
  parseUnits,
  TimeoutError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionSerializableEIP1559,
} from 'viem';
import type { Catalog } from '../../domain/catalog.js';
import { DomainError } from '../../domain/errors.js';
import type { Eip1559Fees } from './evm-fees.js';
import type { EvmSigner } from './evm-signer.js';
import type { PayoutTransfer } from './payout-transfer.js';
import { endpointFreeMessage } from './rpc-errors.js';

/** A zero-value transfer to the wallet itself: what a cancellation or a filler costs in gas on every EVM chain. */
export const SELF_TRANSFER_GAS = 21_000n;

/** A transaction signed by the hot wallet: the bytes to broadcast (hex) and their hash. */
export interface SignedEvmTx {
  raw: string;
  txHash: string;
}

/** What the engine reads back from a signed transaction to replace or cancel it. */
export interface EvmTxTerms {
  nonce: bigint;
  gas: bigint;
  /** Null for a transaction that is not EIP-1559 (signed elsewhere): it is never replaced, only sent again. */
  fees: Eip1559Fees | null;
}

/** What a node said to a broadcast: it holds the bytes, it gave no answer, or it refused them (its words, no URL). */
export type BroadcastAnswer = { kind: 'accepted' } | { kind: 'unanswered' } | { kind: 'refused'; words: string };

/**
 * One EVM network's chain as the nonce engine (src/outbound/evm/) needs it: build, sign, broadcast, look up, prove.
 * It reads and signs; it keeps no payout state and imports nothing of the store. State and gas are read at a block
 * number the engine names: a backend without the block refuses rather than answer another height.
 */
export interface EvmPayoutDriver {
  /** The hot wallet's address. */
  readonly wallet: string;
  /** The chain id the network's endpoint serves, checked against the catalog's: throws on another chain (a transaction signed for one is never sent to another). */
  checkChain(network: string): Promise<number>;
  /** The head block number as the answering backend knows it. */
  head(network: string): Promise<bigint>;
  /** The gas of the transfer at block `at`, or the node's verdict that it would fail now (reverts, or the wallet cannot pay). */
  estimateTransfer(transfer: PayoutTransfer, at: bigint): Promise<{ gas: bigint } | { wouldFail: string }>;
  /**
   * At block `at`, in base units: what the hot wallet holds of the transfer's asset (`held`), what the transfer sends
   * (`needed`), and what it holds of the native coin that pays the fee (`coin`: `held` again for a native transfer).
   */
  funds(transfer: PayoutTransfer, at: bigint): Promise<{ held: bigint; needed: bigint; coin: bigint }>;
  /** The market's fees as of block `at`: its base fee with viem's margin (×1.2) plus the tip the node suggests. */
  feesAt(network: string, at: bigint): Promise<Eip1559Fees>;
  /** The wallet's next nonce counting what the node holds pending. */
  pendingNonce(network: string): Promise<bigint>;
  /** Transactions `address` had mined up to block `at` (its nonce count there). */
  nonceAt(network: string, address: string, at: bigint): Promise<bigint>;
  signTransfer(transfer: PayoutTransfer, terms: { chainId: number; nonce: bigint; gas: bigint; fees: Eip1559Fees }): Promise<SignedEvmTx>;
  /** A zero-value self-transfer at `nonce` (a cancellation or a filler). */
  signSelfTransfer(terms: { chainId: number; nonce: bigint; fees: Eip1559Fees }): Promise<SignedEvmTx>;
  /** The same transaction as `raw` at new fees. */
  signReplacement(raw: string, fees: Eip1559Fees): Promise<SignedEvmTx>;
  terms(raw: string): EvmTxTerms;
  broadcast(network: string, raw: string): Promise<BroadcastAnswer>;
  /** Whether the node has the transaction (pooled or mined); a lookup that fails is no answer, and throws. */
  knows(network: string, txHash: string): Promise<boolean>;
  receipt(network: string, txHash: string): Promise<{ blockNumber: bigint; succeeded: boolean } | null>;
  /** The hash of the transaction at `nonce` sent by `address` in block `block`, if that block holds one. */
  transactionAtNonce(network: string, address: string, nonce: bigint, block: bigint): Promise<string | null>;
}

/** No answer, or no parseable one: the node may or may not have the transaction. */
const isUnanswered = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;

/** The node's own verdict that the transfer cannot succeed now: it would revert, or the wallet cannot pay for it. */
const wouldFail = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError || e instanceof InsufficientFundsError) !== null;

const signed = (raw: Hex): SignedEvmTx => ({ raw, txHash: keccak256(raw) });

/** The EVM driver over JSON-RPC (viem), one client per network, every call bounded by `rpcTimeoutMs`. */
export class ViemPayoutDriver implements EvmPayoutDriver {
  private readonly clients = new Map<string, PublicClient>();
  /** Networks whose endpoint was found to serve the catalog's chain. */
  private readonly checkedChains = new Set<string>();

  constructor(
    private readonly catalog: Catalog,
    rpcUrls: ReadonlyMap<string, string>,
    private readonly signer: EvmSigner,
    rpcTimeoutMs: number,
  ) {
    for (const [network, url] of rpcUrls) {
      this.clients.set(network, createPublicClient({ transport: http(url, { retryCount: 1, timeout: rpcTimeoutMs }), cacheTime: 0 }));
    }
  }

  get wallet(): string {
    return this.signer.address;
  }

  private client(network: string): PublicClient {
    const client = this.clients.get(network);
    if (!client) throw new DomainError('provider_unavailable', `Live payouts on ${network} are not configured on this deployment.`);
    return client;
  }

  async checkChain(network: string): Promise<number> {
    const expected = this.catalog.network(network)!.chain_id!;
    if (this.checkedChains.has(network)) return expected;
    const chainId = await this.client(network).getChainId();
    if (chainId !== expected) throw new Error(`the RPC URL of ${network} serves chain ${chainId}, not ${expected}`);
    this.checkedChains.add(network);
    return expected;
  }

  head(network: string): Promise<bigint> {
    return this.client(network).getBlockNumber({ cacheTime: 0 });
  }

  async estimateTransfer(transfer: PayoutTransfer, at: bigint): Promise<{ gas: bigint } | { wouldFail: string }> {
    try {
      return { gas: await this.client(transfer.network).estimateGas({ account: this.signer.address, ...this.call(transfer), blockNumber: at }) };
    } catch (error) {
      if (wouldFail(error)) return { wouldFail: endpointFreeMessage(error) };
      throw error;
    }
  }

  async funds(transfer: PayoutTransfer, at: bigint): Promise<{ held: bigint; needed: bigint; coin: bigint }> {
    const pair = this.catalog.pair(transfer.asset, transfer.network)!;
    const client = this.client(transfer.network);
    const wallet = this.signer.address;
    const [coin, token] = await Promise.all([
      client.getBalance({ address: wallet, blockNumber: at }),
      pair.token_contract === null
        ? null
        : client.readContract({ address: pair.token_contract as Address, abi: erc20Abi, functionName: 'balanceOf', args: [wallet], blockNumber: at }),
    ]);
    return { held: token ?? coin, needed: parseUnits(transfer.amount, pair.decimals), coin };
  }

  async feesAt(network: string, at: bigint): Promise<Eip1559Fees> {
    const client = this.client(network);
    const [block, tip] = await Promise.all([client.getBlock({ blockNumber: at }), client.estimateMaxPriorityFeePerGas()]);
    if (block.baseFeePerGas === null) throw new Error(`block ${at} has no base fee: the chain does not price EIP-1559 transactions`);
    return { maxFeePerGas: (block.baseFeePerGas * 6n) / 5n + tip, maxPriorityFeePerGas: tip };
  }

  async pendingNonce(network: string): Promise<bigint> {
    return BigInt(await this.client(network).getTransactionCount({ address: this.signer.address, blockTag: 'pending' }));
  }

  async nonceAt(network: string, address: string, at: bigint): Promise<bigint> {
    return BigInt(await this.client(network).getTransactionCount({ address: address as Address, blockNumber: at }));
  }

  async signTransfer(transfer: PayoutTransfer, { chainId, nonce, gas, fees }: { chainId: number; nonce: bigint; gas: bigint; fees: Eip1559Fees }): Promise<SignedEvmTx> {
    return signed(
      await this.signer.signTransaction({
        type: 'eip1559',
        chainId,
        nonce: Number(nonce),
        ...this.call(transfer),
        gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas < fees.maxFeePerGas ? fees.maxPriorityFeePerGas : fees.maxFeePerGas,
      }),
    );
  }

  async signSelfTransfer({ chainId, nonce, fees }: { chainId: number; nonce: bigint; fees: Eip1559Fees }): Promise<SignedEvmTx> {
    return signed(
      await this.signer.signTransaction({ type: 'eip1559', chainId, nonce: Number(nonce), to: this.signer.address, value: 0n, gas: SELF_TRANSFER_GAS, ...fees }),
    );
  }

  async signReplacement(raw: string, fees: Eip1559Fees): Promise<SignedEvmTx> {
    const { chainId, nonce, to, value, data, gas, accessList } = parseTransaction(raw as Hex) as TransactionSerializableEIP1559;
    return signed(await this.signer.signTransaction({ type: 'eip1559', chainId, nonce, to, value, data, gas, accessList, ...fees }));
  }

  terms(raw: string): EvmTxTerms {
    const tx = parseTransaction(raw as Hex);
    const fees = tx.type === 'eip1559' ? { maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! } : null;
    return { nonce: BigInt(tx.nonce!), gas: tx.gas!, fees };
  }

  async broadcast(network: string, raw: string): Promise<BroadcastAnswer> {
    try {
      await this.client(network).sendRawTransaction({ serializedTransaction: raw as Hex });
      return { kind: 'accepted' };
    } catch (error) {
      if (isUnanswered(error)) return { kind: 'unanswered' };
      return { kind: 'refused', words: endpointFreeMessage(error) };
    }
  }

  async knows(network: string, txHash: string): Promise<boolean> {
    try {
      await this.client(network).getTransaction({ hash: txHash as Hex });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw error;
    }
  }

  async receipt(network: string, txHash: string): Promise<{ blockNumber: bigint; succeeded: boolean } | null> {
    try {
      const receipt = await this.client(network).getTransactionReceipt({ hash: txHash as Hex });
      return { blockNumber: receipt.blockNumber, succeeded: receipt.status === 'success' };
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  async transactionAtNonce(network: string, address: string, nonce: bigint, block: bigint): Promise<string | null> {
    const { transactions } = await this.client(network).getBlock({ blockNumber: block, includeTransactions: true });
    return transactions.find((tx) => tx.nonce === Number(nonce) && tx.from.toLowerCase() === address.toLowerCase())?.hash ?? null;
  }

  /** What to send: value to the destination, or the token contract's `transfer(destination, amount)`. */
  private call(transfer: PayoutTransfer): { to: Address; value: bigint; data?: Hex } {
    const pair = this.catalog.pair(transfer.asset, transfer.network)!;
    const amount = parseUnits(transfer.amount, pair.decimals);
    if (pair.token_contract === null) return { to: transfer.destination as Address, value: amount };
    return {
      to: pair.token_contract as Address,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [transfer.destination as Address, amount] }),
    };
  }
}
