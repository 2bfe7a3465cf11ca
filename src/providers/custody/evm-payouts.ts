import {
  BaseError,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  http,
  HttpRequestError,
  keccak256,
  parseTransaction,
  parseUnits,
  TimeoutError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  type TransactionSerializableEIP1559,
} from 'viem';
import type { Catalog } from '../../domain/catalog.js';
import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import {
  allocateNonce,
  findBroadcastPayoutTx,
  findPayoutTx,
  recordBroadcast,
  recordReplacement,
  recordSigned,
  releaseNonce,
  restoreReplaced,
  type PayoutTxRow,
} from '../../store/evm-payouts.js';
import { replacementFees } from '../chains/evm-fees.js';
import type { EvmSigner } from '../chains/evm-signer.js';
import { withoutEndpoint } from '../chains/rpc-errors.js';
import { ProviderRetryLater, type PayoutProgress, type PayoutRequest } from './custody-provider.js';

/** No answer, or no parseable one: the node may or may not have the transaction. */
const isUnanswered = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;

/**
 * A database failure while a payout is sent: the payout stays pending and the resume sweep sends it again,
 * which finds what was recorded. Failing the payout instead would release funds whose transaction may be out.
 */
const orRetryLater = <T>(work: Promise<T>): Promise<T> =>
  work.catch((error: unknown) => {
    throw new ProviderRetryLater(`the database failed while the payout was sent: ${error instanceof Error ? error.message : String(error)}`);
  });

/**
 * Live EVM payouts from the hot wallet: the transaction is built (native value, or an ERC-20 `transfer` of the
 * catalog's token), its gas estimated and its fee capped by what the quote charged, a nonce taken from the
 * database, signed by the signer, recorded, then broadcast. Sending a payout again (the resume sweep) broadcasts
 * the recorded transaction again, so a payout is never paid twice. A transaction the node refuses releases its
 * nonce to the next payout and fails the payout (its funds are released by the caller). A transaction left unmined
 * for `rebroadcastAfterSeconds` is replaced (same nonce, higher fee, within the cap) or, at the cap, sent again.
 * Errors never name the RPC URL.
 */
export class EvmPayouts {
  private readonly clients = new Map<string, PublicClient>();
  /** Networks whose endpoint was found to serve the catalog's chain. */
  private readonly checkedChains = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    rpcUrls: ReadonlyMap<string, string>,
    private readonly signer: EvmSigner,
    private readonly rebroadcastAfterSeconds: number,
  ) {
    for (const [network, url] of rpcUrls) this.clients.set(network, createPublicClient({ transport: http(url, { retryCount: 1 }), cacheTime: 0 }));
  }

  private client(network: string): PublicClient {
    const client = this.clients.get(network);
    if (!client) throw new DomainError('provider_unavailable', `Live payouts on ${network} are not configured on this deployment.`);
    return client;
  }

  /** Throws unless the endpoint serves the catalog's chain: a transaction signed for one chain is never sent to another. */
  private async checkChain(client: PublicClient, network: string, served?: number): Promise<void> {
    if (this.checkedChains.has(network)) return;
    const expected = this.catalog.network(network)!.chain_id;
    const chainId = served ?? (await client.getChainId());
    if (chainId !== expected) throw new Error(`the RPC URL of ${network} serves chain ${chainId}, not ${expected}`);
    this.checkedChains.add(network);
  }

  async send(request: PayoutRequest): Promise<{ txHash: string }> {
    try {
      return await this.sendOnce(request);
    } catch (error) {
      throw withoutEndpoint(error);
    }
  }

  private async sendOnce(request: PayoutRequest): Promise<{ txHash: string }> {
    const client = this.client(request.network);
    const recorded = await orRetryLater(findPayoutTx(this.db, request.payoutId));
    if (recorded?.raw) {
      // Signed before: on another chain it would be refused and its nonce given away while it may still be mined.
      await this.checkChain(client, request.network).catch((error: unknown) => {
        throw new ProviderRetryLater(error instanceof Error ? error.message : String(error));
      });
      return this.broadcast(client, request.payoutId, recorded.raw as Hex);
    }

    const call = this.call(request);
    const native = this.catalog.network(request.network)!.native_asset;
    const cap = request.feeCap === null ? null : parseUnits(request.feeCap, this.catalog.pair(native, request.network)?.decimals ?? 18);
    if (cap === null) throw new Error('no fee cap: the quoted network fee could not be converted into the native asset');
    const [gas, fees, chainId, chainNext] = await Promise.all([
      client.estimateGas({ account: this.signer.address, ...call }),
      client.estimateFeesPerGas(),
      client.getChainId(),
      client.getTransactionCount({ address: this.signer.address, blockTag: 'pending' }),
    ]);
    await this.checkChain(client, request.network, chainId);
    const maxFeePerGas = fees.maxFeePerGas;
    if (gas * maxFeePerGas > cap) {
      throw new Error(`the network fee now (${gas * maxFeePerGas} wei) is above what the quote charged (${cap} wei)`);
    }
    const nonce = await orRetryLater(allocateNonce(this.db, { network: request.network, from: this.signer.address }, request.payoutId, BigInt(chainNext)));
    let raw: Hex;
    try {
      raw = await this.signer.signTransaction({
        type: 'eip1559',
        chainId,
        nonce: Number(nonce),
        ...call,
        gas,
        maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas,
      });
    } catch (error) {
      await orRetryLater(releaseNonce(this.db, request.payoutId));
      throw error;
    }
    await orRetryLater(recordSigned(this.db, request.payoutId, { raw, txHash: keccak256(raw), feeCapWei: cap }));
    return this.broadcast(client, request.payoutId, raw);
  }

  private async broadcast(client: PublicClient, payoutId: string, raw: Hex): Promise<{ txHash: string }> {
    const txHash = keccak256(raw);
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (isUnanswered(error)) throw new ProviderRetryLater(`the node did not answer the broadcast of ${txHash}`);
      // Sent before (the first answer was lost): the node already has it, or has mined it.
      if (!(await this.nodeHas(client, txHash))) {
        await orRetryLater(releaseNonce(this.db, payoutId));
        throw error;
      }
    }
    await orRetryLater(recordBroadcast(this.db, payoutId));
    return { txHash };
  }

  private nodeHas(client: PublicClient, hash: string): Promise<boolean> {
    return client.getTransaction({ hash: hash as Hex }).then(
      () => true,
      () => false,
    );
  }

  /** What to send: value to the destination, or the token contract's `transfer(destination, amount)`. */
  private call(request: PayoutRequest): { to: Address; value: bigint; data?: Hex } {
    const pair = this.catalog.pair(request.asset, request.network)!;
    const amount = parseUnits(request.amount, pair.decimals);
    if (pair.token_contract === null) return { to: request.destination as Address, value: amount };
    return {
      to: pair.token_contract as Address,
      value: 0n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [request.destination as Address, amount] }),
    };
  }

  /**
   * Mined under any of its hashes and with the pair's confirmations (the including block counts), successfully
   * or reverted, or neither yet; an unmined one due for it is rebroadcast.
   */
  async progress(payout: { id: string; network: string; txHash: string; asset: string }): Promise<PayoutProgress> {
    try {
      return await this.progressOnce(payout);
    } catch (error) {
      throw withoutEndpoint(error);
    }
  }

  private async progressOnce(payout: { id: string; network: string; txHash: string; asset: string }): Promise<PayoutProgress> {
    const client = this.client(payout.network);
    await this.checkChain(client, payout.network);
    const sent = await findBroadcastPayoutTx(this.db, payout.id, this.rebroadcastAfterSeconds);
    // Newest first: a replacement is likelier to be the one mined.
    const hashes = sent ? [sent.tx_hash!, ...sent.replaced_tx_hashes.toReversed()] : [payout.txHash];
    for (const hash of hashes) {
      const receipt = await this.receipt(client, hash);
      if (!receipt) continue;
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const required = BigInt(this.catalog.pair(payout.asset, payout.network)!.confirmations_required);
      // A revert counts only as deep as a success: a reorganization could un-mine it, and another of the nonce's transactions succeed.
      if (head - receipt.blockNumber + 1n < required) return { state: 'pending', txHash: hash };
      return { state: receipt.status === 'success' ? 'confirmed' : 'reverted', txHash: hash };
    }
    if (!sent?.rebroadcast_due) return { state: 'pending', txHash: sent?.tx_hash ?? payout.txHash };
    return { state: 'pending', ...(await this.rebroadcast(client, payout.id, sent)) };
  }

  private async receipt(client: PublicClient, hash: string): Promise<TransactionReceipt | null> {
    try {
      return await client.getTransactionReceipt({ hash: hash as Hex });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  }

  /**
   * A transaction unmined for long enough: replaced by one with the same nonce and higher fees within the cap;
   * sent again as it is when it only waits behind an earlier nonce of the wallet, was signed before its cap was
   * recorded, or is at the cap already.
   */
  private async rebroadcast(client: PublicClient, payoutId: string, sent: PayoutTxRow): Promise<{ txHash: string; atFeeCap?: boolean }> {
    const current = { raw: sent.raw as Hex, txHash: sent.tx_hash! };
    const previous = parseTransaction(current.raw);
    const used = await client.getTransactionCount({ address: this.signer.address, blockTag: 'latest' });
    if (previous.nonce! < used) {
      throw new Error(`nonce ${previous.nonce} of the hot wallet is used, by none of this payout's transactions (${[...sent.replaced_tx_hashes, current.txHash].join(', ')}) unless mined since this sweep looked`);
    }
    // Waiting behind an earlier transaction of the wallet is no reason to pay more.
    if (previous.nonce! > used || previous.type !== 'eip1559' || sent.fee_cap_wei === null) return this.sendAgain(client, payoutId, current);
    const fees = replacementFees(
      { maxFeePerGas: previous.maxFeePerGas!, maxPriorityFeePerGas: previous.maxPriorityFeePerGas! },
      await client.estimateFeesPerGas(),
      previous.gas!,
      BigInt(sent.fee_cap_wei),
    );
    if (fees === null) return { ...(await this.sendAgain(client, payoutId, current)), atFeeCap: true };
    const { chainId, nonce, to, value, data, gas, accessList } = previous as TransactionSerializableEIP1559;
    const raw = await this.signer.signTransaction({ type: 'eip1559', chainId, nonce, to, value, data, gas, accessList, ...fees });
    const replacement = { raw, txHash: keccak256(raw) };
    if (!(await recordReplacement(this.db, payoutId, current.txHash, replacement))) return { txHash: current.txHash };
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // No answer, or an answer lost and the node has it after all: the replacement stays current.
      if (isUnanswered(error) || (await this.nodeHas(client, replacement.txHash))) return { txHash: replacement.txHash };
      // Refused: the stuck one is current again; the replacement's hash is still looked up, should the refusal have been wrong.
      await restoreReplaced(this.db, payoutId, replacement.txHash, current);
      throw error;
    }
    return { txHash: replacement.txHash };
  }

  /** The same signed transaction again, in case the node dropped it; a node that has it, or has mined it, refuses, which is no failure. */
  private async sendAgain(client: PublicClient, payoutId: string, current: { raw: Hex; txHash: string }): Promise<{ txHash: string }> {
    await client.sendRawTransaction({ serializedTransaction: current.raw }).catch(() => undefined);
    await recordBroadcast(this.db, payoutId);
    return { txHash: current.txHash };
  }
}
