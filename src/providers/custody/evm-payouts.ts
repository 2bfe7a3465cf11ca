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
  undoReplacement,
  type PayoutTxRow,
} from '../../store/evm-payouts.js';
import { replacementFees } from '../chains/evm-fees.js';
import type { EvmSigner } from '../chains/evm-signer.js';
import { ProviderRetryLater, type PayoutProgress, type PayoutRequest } from './custody-provider.js';

/** No answer, or no parseable one: the node may or may not have the transaction. */
const isUnanswered = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;

/**
 * Live EVM payouts from the hot wallet: the transaction is built (native value, or an ERC-20 `transfer` of the
 * catalog's token), its gas estimated and its fee capped by what the quote charged, a nonce taken from the
 * database, signed by the signer, recorded, then broadcast. Sending a payout again (the resume sweep) broadcasts
 * the recorded transaction again, so a payout is never paid twice. A transaction the node refuses releases its
 * nonce to the next payout and fails the payout (its funds are released by the caller). A transaction left unmined
 * for `rebroadcastAfterSeconds` is replaced (same nonce, higher fee, within the cap) or, at the cap, sent again.
 */
export class EvmPayouts {
  private readonly clients = new Map<string, PublicClient>();

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

  async send(request: PayoutRequest): Promise<{ txHash: string }> {
    const client = this.client(request.network);
    const recorded = await findPayoutTx(this.db, request.payoutId);
    if (recorded?.raw) return this.broadcast(client, request.payoutId, recorded.raw as Hex);

    const call = this.call(request);
    const cap = request.feeCap === null ? null : parseUnits(request.feeCap, 18);
    if (cap === null) throw new Error('no fee cap: the quoted network fee could not be converted into the native asset');
    const [gas, fees, chainId, chainNext] = await Promise.all([
      client.estimateGas({ account: this.signer.address, ...call }),
      client.estimateFeesPerGas(),
      client.getChainId(),
      client.getTransactionCount({ address: this.signer.address, blockTag: 'pending' }),
    ]);
    const expectedChain = this.catalog.network(request.network)!.chain_id;
    if (chainId !== expectedChain) throw new Error(`the RPC URL of ${request.network} serves chain ${chainId}, not ${expectedChain}: nothing was signed`);
    const maxFeePerGas = fees.maxFeePerGas;
    if (gas * maxFeePerGas > cap) {
      throw new Error(`the network fee now (${gas * maxFeePerGas} wei) is above what the quote charged (${cap} wei)`);
    }
    const nonce = await allocateNonce(this.db, { network: request.network, from: this.signer.address }, request.payoutId, BigInt(chainNext));
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
      await releaseNonce(this.db, request.payoutId);
      throw error;
    }
    await recordSigned(this.db, request.payoutId, { raw, txHash: keccak256(raw), feeCapWei: cap });
    return this.broadcast(client, request.payoutId, raw);
  }

  private async broadcast(client: PublicClient, payoutId: string, raw: Hex): Promise<{ txHash: string }> {
    const txHash = keccak256(raw);
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (isUnanswered(error)) throw new ProviderRetryLater(`the node did not answer the broadcast of ${txHash}`, { cause: error });
      // Sent before (the first answer was lost): the node already has it, or has mined it.
      if (await client.getTransaction({ hash: txHash }).then(() => true, () => false)) {
        await recordBroadcast(this.db, payoutId);
        return { txHash };
      }
      await releaseNonce(this.db, payoutId);
      throw error;
    }
    await recordBroadcast(this.db, payoutId);
    return { txHash };
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
   * Mined under any of its hashes and with the pair's confirmations (the including block counts), reverted, or
   * neither yet; an unmined one due for it is rebroadcast.
   */
  async progress(payout: { id: string; network: string; txHash: string; asset: string }): Promise<PayoutProgress> {
    const client = this.client(payout.network);
    const sent = await findBroadcastPayoutTx(this.db, payout.id, this.rebroadcastAfterSeconds);
    // Newest first: a replacement is likelier to be the one mined.
    const hashes = sent ? [sent.tx_hash!, ...sent.replaced_tx_hashes.toReversed()] : [payout.txHash];
    for (const hash of hashes) {
      const receipt = await this.receipt(client, hash);
      if (!receipt) continue;
      if (receipt.status !== 'success') return { state: 'reverted', txHash: hash };
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const required = BigInt(this.catalog.pair(payout.asset, payout.network)!.confirmations_required);
      return { state: head - receipt.blockNumber + 1n >= required ? 'confirmed' : 'pending', txHash: hash };
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
   * A stuck transaction again: replaced by one with the same nonce and higher fees within the cap, or, when the
   * cap leaves no room (or was never recorded), the same one sent again in case the node dropped it.
   */
  private async rebroadcast(client: PublicClient, payoutId: string, sent: PayoutTxRow): Promise<{ txHash: string; atFeeCap?: boolean }> {
    const current = { raw: sent.raw as Hex, txHash: sent.tx_hash! };
    const previous = parseTransaction(current.raw);
    const fees =
      previous.type === 'eip1559' && sent.fee_cap_wei !== null
        ? replacementFees(
            { maxFeePerGas: previous.maxFeePerGas!, maxPriorityFeePerGas: previous.maxPriorityFeePerGas! },
            await client.estimateFeesPerGas(),
            previous.gas!,
            BigInt(sent.fee_cap_wei),
          )
        : null;
    if (fees === null) {
      await this.resend(client, current.raw);
      await recordBroadcast(this.db, payoutId);
      return { txHash: current.txHash, atFeeCap: true };
    }
    const { chainId, nonce, to, value, data, gas, accessList } = previous as TransactionSerializableEIP1559;
    const raw = await this.signer.signTransaction({ type: 'eip1559', chainId, nonce, to, value, data, gas, accessList, ...fees });
    const replacement = { raw, txHash: keccak256(raw) };
    if (!(await recordReplacement(this.db, payoutId, current.txHash, replacement))) return { txHash: current.txHash };
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // Unknown outcome: the replacement stays current, sent again when next due.
      if (isUnanswered(error)) return replacement;
      // Refused (a node with a stricter bump rule, or the nonce already mined): the stuck one is current again.
      await undoReplacement(this.db, payoutId, replacement.txHash, current);
      throw error;
    }
    return { txHash: replacement.txHash };
  }

  /** The same signed transaction again; a node that has it, or has mined it, says so, which is no failure here. */
  private async resend(client: PublicClient, raw: Hex): Promise<void> {
    await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => undefined);
  }
}
