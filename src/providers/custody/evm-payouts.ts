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
  type TransactionReceipt,
  type TransactionSerializableEIP1559,
} from 'viem';
import type { Catalog } from '../../domain/catalog.js';
import { DomainError } from '../../domain/errors.js';
import type { Database } from '../../store/database.js';
import {
  allocateNonce,
  claimGaps,
  findPayoutNonce,
  markFilled,
  recordBroadcast,
  recordFiller,
  recordNotSentSighting,
  recordSigned,
  releaseUnsignedNonce,
  restoreCurrent,
  type NonceRow,
  type Signed,
} from '../../store/evm-payouts.js';
import { linkedHeight } from '../../store/chain-watch.js';
import { lockLeased, type Lease } from '../../store/payout-leases.js';
import { replacementFees, type Eip1559Fees } from '../chains/evm-fees.js';
import { nonceVerdict, type NonceObservation } from '../chains/evm-nonce-verdict.js';
import type { EvmSigner } from '../chains/evm-signer.js';
import { endpointFreeMessage, withoutEndpoint } from '../chains/rpc-errors.js';
import type { PayoutBoundary, PayoutOutcome, PayoutRequest } from './custody-provider.js';

/** A zero-value transfer to the wallet itself: what a cancellation or a filler costs in gas on every EVM chain. */
const SELF_TRANSFER_GAS = 21_000n;

export interface EvmPayoutOptions {
  /** Seconds a transaction may stay unmined before it is sent again (replaced at a higher fee within the cap). */
  rebroadcastAfterSeconds: number;
  /** Seconds a released nonce may wait for a payout to take it before a filler is sent at it. */
  gapFillAfterSeconds: number;
  /**
   * Seconds between two attempts that must see the same proof that nothing was paid before the payout fails and its
   * funds are released; 0: a second look within the same attempt.
   */
  notSentConfirmSeconds: number;
  /** The longest one JSON-RPC call may take. */
  rpcTimeoutMs: number;
  /** Called at each boundary; a test makes it never return, as a killed process never goes on. */
  atBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>;
}

/** No answer, or no parseable one: the node may or may not have the transaction. */
const isUnanswered = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;

/** The node's own verdict that the transfer cannot succeed now: it would revert, or the wallet cannot pay for it. */
const wouldFail = (error: unknown) =>
  error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError || e instanceof InsufficientFundsError) !== null;

const wordsOf = endpointFreeMessage;

const unknown = (reason: string): PayoutOutcome => ({ kind: 'unknown', reason });

/**
 * Live EVM payouts from the hot wallet, one step per call, answering a closed outcome (docs/money-out.md, "Live
 * payouts: states and leases"). Nothing signed yet: the transfer is built (native value, or an ERC-20 `transfer`),
 * its gas estimated and its fee capped by what the quote charged, a nonce taken under the payout's lease, signed,
 * recorded, then broadcast; only a recorded transaction is ever broadcast, and a recorded one is never
 * overwritten. Something signed: every transaction at the nonce is looked up, and the one mined decides, at the
 * confirmations. Unmined: the current transaction is sent again, replaced at a higher fee when stuck, or, when the
 * node refuses it, cancelled by a zero-value self-transfer at its nonce. Funds are released only on proof
 * (`not_sent`); anything the node leaves in doubt is `unknown`. Errors never name the RPC URL.
 */
export class EvmPayouts {
  private readonly clients = new Map<string, PublicClient>();
  /** Networks whose endpoint was found to serve the catalog's chain. */
  private readonly checkedChains = new Set<string>();
  /**
   * The highest head any answer showed for each network, or the deposit watchers' linked chain did. State and fees
   * are read at it, by number: a backend behind it refuses (a node without a block answers no state for it) instead
   * of answering an older state, such as a hot wallet without the tokens it received since (a payout failed that can
   * succeed), or a chain before the token contract was deployed (its transfer's gas estimated as a plain call's).
   */
  private readonly heights = new Map<string, bigint>();

  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    rpcUrls: ReadonlyMap<string, string>,
    private readonly signer: EvmSigner,
    private readonly options: EvmPayoutOptions,
  ) {
    for (const [network, url] of rpcUrls) {
      this.clients.set(network, createPublicClient({ transport: http(url, { retryCount: 1, timeout: options.rpcTimeoutMs }), cacheTime: 0 }));
    }
  }

  private client(network: string): PublicClient {
    const client = this.clients.get(network);
    if (!client) throw new DomainError('provider_unavailable', `Live payouts on ${network} are not configured on this deployment.`);
    return client;
  }

  private at(boundary: PayoutBoundary, payoutId: string): Promise<void> {
    return this.options.atBoundary?.(boundary, payoutId) ?? Promise.resolve();
  }

  /** Throws unless the endpoint serves the catalog's chain: a transaction signed for one chain is never sent to another. */
  private async checkChain(client: PublicClient, network: string, served?: number): Promise<void> {
    if (this.checkedChains.has(network)) return;
    const expected = this.catalog.network(network)!.chain_id;
    const chainId = served ?? (await client.getChainId());
    if (chainId !== expected) throw new Error(`the RPC URL of ${network} serves chain ${chainId}, not ${expected}`);
    this.checkedChains.add(network);
  }

  async advance(request: PayoutRequest): Promise<PayoutOutcome> {
    try {
      return await this.advanceOnce(request);
    } catch (error) {
      return unknown(wordsOf(error));
    }
  }

  private async advanceOnce(request: PayoutRequest, lookedAgain = false): Promise<PayoutOutcome> {
    const client = this.client(request.network);
    const row = await findPayoutNonce(this.db, request.payoutId, this.options.rebroadcastAfterSeconds);
    if (!row?.raw) {
      if (request.cancelRequested) return this.endUnsigned(request.lease, 'Cancelled by the operator before anything was signed.');
      return this.signAndSend(client, request);
    }
    await this.checkChain(client, request.network);
    const seen = await this.observe(client, row, BigInt(this.catalog.pair(request.asset, request.network)!.confirmations_required));
    const verdict = nonceVerdict(seen);
    switch (verdict.kind) {
      case 'paid':
        return { kind: 'confirmed', txHash: verdict.txHash };
      case 'not_paid':
        return this.believeNotSent(request, verdict, notPaidReason(verdict, seen.nonce), lookedAgain);
      case 'mined_shallow':
        return seen.mined!.purpose === 'payout'
          ? { kind: 'sent', txHash: verdict.txHash }
          : unknown(`The cancellation ${verdict.txHash} is mined at the payout's nonce; the payout fails at its confirmations.`);
      case 'used_shallow':
        return unknown(`Nonce ${seen.nonce} of the hot wallet is used by a transaction that is none of this payout's; waiting for its confirmations.`);
      case 'unproven':
        return unknown(`Nonce ${seen.nonce} of the hot wallet is used, and the node's answers do not yet show by which transaction; looked up again.`);
      case 'open':
        if (request.cancelRequested && row.current_purpose === 'payout') return this.cancel(client, request, row, 'Cancelled by the operator');
        return this.sendCurrent(client, request, row, seen.usedAtHead);
    }
  }

  /**
   * A proof that nothing was paid, believed only when seen again `notSentConfirmSeconds` after its first sighting
   * (with 0, by a second look within this attempt): until then `unknown`, the funds reserved.
   */
  private async believeNotSent(
    request: PayoutRequest,
    verdict: { proof: 'reverted' | 'cancelled' | 'nonce_used_elsewhere'; txHash: string | null },
    reason: string,
    lookedAgain: boolean,
  ): Promise<PayoutOutcome> {
    const confirmAfter = this.options.notSentConfirmSeconds;
    switch (await recordNotSentSighting(this.db, request.lease, `${verdict.proof}:${verdict.txHash}`, confirmAfter)) {
      case 'confirmed':
        return { kind: 'not_sent', proof: verdict.proof, reason };
      case 'first':
        if (confirmAfter === 0 && !lookedAgain) return this.advanceOnce(request, true);
        return unknown(`${reason} Seen once: believed when an attempt at least ${confirmAfter} s later sees the same.`);
      case 'waiting':
        return unknown(`${reason} Believed when an attempt at least ${confirmAfter} s after the first sighting sees the same.`);
      case 'lease_lost':
        return unknown('the lease on the payout was lost');
    }
  }

  /** Nothing was signed: the nonce it held (if any) goes back, and the payout provably never left. */
  private async endUnsigned(lease: Lease, reason: string): Promise<PayoutOutcome> {
    const released = await this.db.transaction(async (tx) => {
      if (!(await lockLeased(tx, lease))) return false;
      await releaseUnsignedNonce(tx, lease.payoutId);
      return true;
    });
    return released ? { kind: 'not_sent', proof: 'nothing_signed', reason } : unknown('the lease on the payout was lost');
  }

  private async signAndSend(client: PublicClient, request: PayoutRequest): Promise<PayoutOutcome> {
    const call = this.call(request);
    const native = this.catalog.network(request.network)!.native_asset;
    if (request.feeCap === null) return unknown('no fresh price converts the quoted network fee into the native asset; retried');
    const cap = parseUnits(request.feeCap, this.catalog.pair(native, request.network)?.decimals ?? 18);
    // Before any state is read: heights and balances of another chain mean nothing here.
    await this.checkChain(client, request.network);
    const height = await this.head(client, request.network);
    let gas: bigint;
    try {
      gas = await client.estimateGas({ account: this.signer.address, ...call, blockNumber: height });
    } catch (error) {
      if (wouldFail(error)) return this.endUnsigned(request.lease, `The transfer would fail on chain: ${wordsOf(error)}`);
      throw error;
    }
    const [fees, chainId, chainNext] = await Promise.all([
      this.feesAt(client, height),
      client.getChainId(),
      client.getTransactionCount({ address: this.signer.address, blockTag: 'pending' }),
    ]);
    await this.checkChain(client, request.network, chainId);
    if (gas * fees.maxFeePerGas > cap) {
      return this.endUnsigned(request.lease, `The network fee now (${gas * fees.maxFeePerGas} wei) is above what the quote charged (${cap} wei).`);
    }
    const nonce = await allocateNonce(this.db, { network: request.network, from: this.signer.address }, request.lease, BigInt(chainNext));
    if (nonce === null) return unknown('the lease on the payout was lost');
    await this.at('nonce-allocated', request.payoutId);
    const raw = await this.signer.signTransaction({
      type: 'eip1559',
      chainId,
      nonce: Number(nonce),
      ...call,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas < fees.maxFeePerGas ? fees.maxPriorityFeePerGas : fees.maxFeePerGas,
    });
    const signed: Signed = { raw, txHash: keccak256(raw), purpose: 'payout' };
    const nonceId = await recordSigned(this.db, request.lease, null, signed, cap);
    if (nonceId === null) return unknown('another process signed the payout first, or the lease on it was lost');
    await this.at('signed', request.payoutId);
    return this.broadcast(client, request, nonceId, signed);
  }

  /** Sends the current transaction; a refusal of one the node does not have is answered by a cancellation. */
  private async broadcast(client: PublicClient, request: PayoutRequest, nonceId: string, current: Signed): Promise<PayoutOutcome> {
    try {
      await client.sendRawTransaction({ serializedTransaction: current.raw as Hex });
    } catch (error) {
      if (isUnanswered(error)) return unknown(`the node did not answer the broadcast of ${current.txHash}`);
      // Sent before (the first answer was lost): the node has it, or has mined it; that is no refusal.
      if (!(await this.nodeKnows(client, current.txHash))) {
        if (current.purpose !== 'payout') return unknown(`The node refuses the cancellation ${current.txHash}: ${wordsOf(error)}. It is sent again at the next attempt.`);
        const row = await findPayoutNonce(this.db, request.payoutId);
        return this.cancel(client, request, row!, `The node refused the payout's transaction ${current.txHash} (${wordsOf(error)})`);
      }
    }
    await this.at('broadcast', request.payoutId);
    await recordBroadcast(this.db, nonceId, current.txHash);
    return standing(current);
  }

  /**
   * A cancellation at the payout's nonce: a zero-value self-transfer within the payout's fee cap, priced to replace
   * its transaction in a node's pool. The payout's transaction is never forgotten: it may still be mined somewhere,
   * and then the payout completes instead.
   */
  private async cancel(client: PublicClient, request: PayoutRequest, row: NonceRow, why: string): Promise<PayoutOutcome> {
    const previous = parseTransaction(row.raw as Hex) as TransactionSerializableEIP1559;
    const market = await this.feesAt(client, await this.head(client, request.network));
    const cap = row.fee_cap_wei === null ? previous.gas! * previous.maxFeePerGas! : BigInt(row.fee_cap_wei);
    const fees: Eip1559Fees = replacementFees(
      { maxFeePerGas: previous.maxFeePerGas!, maxPriorityFeePerGas: previous.maxPriorityFeePerGas! },
      market,
      SELF_TRANSFER_GAS,
      cap,
    ) ?? { maxFeePerGas: cap / SELF_TRANSFER_GAS, maxPriorityFeePerGas: cap / SELF_TRANSFER_GAS };
    const raw = await this.signer.signTransaction({
      type: 'eip1559',
      chainId: previous.chainId,
      nonce: previous.nonce,
      to: this.signer.address,
      value: 0n,
      gas: SELF_TRANSFER_GAS,
      ...fees,
    });
    const signed: Signed = { raw, txHash: keccak256(raw), purpose: 'cancel' };
    if ((await recordSigned(this.db, request.lease, row.tx_hash, signed)) === null) return unknown('another process changed the payout\'s transaction first, or the lease on it was lost');
    await this.at('cancel-signed', request.payoutId);
    const outcome = await this.broadcast(client, request, row.id, signed);
    return outcome.kind === 'unknown' ? outcome : unknown(`${why}. A cancellation (${signed.txHash}) is sent at its nonce ${previous.nonce}: the payout fails once it is mined, or completes if its own transaction is mined first.`);
  }

  /** The current transaction, unmined: left alone, broadcast (never known to be), or sent again when due. */
  private async sendCurrent(client: PublicClient, request: PayoutRequest, row: NonceRow, used: bigint): Promise<PayoutOutcome> {
    const current: Signed = { raw: row.raw!, txHash: row.tx_hash!, purpose: row.current_purpose };
    if (row.status !== 'broadcast') return this.broadcast(client, request, row.id, current);
    if (!row.rebroadcast_due) return standing(current);
    return this.rebroadcast(client, request, row, current, used);
  }

  /**
   * A transaction unmined for long enough: replaced by one with the same nonce and higher fees within the cap;
   * sent again as it is when it only waits behind an earlier nonce of the wallet, was signed before its cap was
   * recorded, or is at the cap already.
   */
  private async rebroadcast(client: PublicClient, request: PayoutRequest, row: NonceRow, current: Signed, used: bigint): Promise<PayoutOutcome> {
    const previous = parseTransaction(current.raw as Hex);
    // Waiting behind an earlier transaction of the wallet is no reason to pay more.
    if (previous.nonce! > used || previous.type !== 'eip1559' || row.fee_cap_wei === null) return this.sendAgain(client, row.id, current);
    const fees = replacementFees(
      { maxFeePerGas: previous.maxFeePerGas!, maxPriorityFeePerGas: previous.maxPriorityFeePerGas! },
      await this.feesAt(client, await this.head(client, request.network)),
      previous.gas!,
      BigInt(row.fee_cap_wei),
    );
    if (fees === null) {
      const outcome = await this.sendAgain(client, row.id, current);
      return outcome.kind === 'sent' ? { ...outcome, atFeeCap: true } : outcome;
    }
    const { chainId, nonce, to, value, data, gas, accessList } = previous as TransactionSerializableEIP1559;
    const raw = await this.signer.signTransaction({ type: 'eip1559', chainId, nonce, to, value, data, gas, accessList, ...fees });
    const replacement: Signed = { raw, txHash: keccak256(raw), purpose: current.purpose };
    if ((await recordSigned(this.db, request.lease, current.txHash, replacement)) === null) return standing(current);
    await this.at('replacement-signed', request.payoutId);
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // No answer, or an answer lost and the node has it after all: the replacement stays current.
      if (isUnanswered(error) || (await this.nodeKnows(client, replacement.txHash))) return standing(replacement);
      // Refused: the stuck one is current again; the replacement's hash is still looked up, should the refusal have been wrong.
      await restoreCurrent(this.db, request.payoutId, replacement.txHash, current);
      return unknown(`The node refused the replacement ${replacement.txHash} of ${current.txHash} (${wordsOf(error)}); ${current.txHash} stays current.`);
    }
    await recordBroadcast(this.db, row.id, replacement.txHash);
    return standing(replacement);
  }

  /** The same signed transaction again, in case the node dropped it; a node that has it, or has mined it, refuses, which is no failure. */
  private async sendAgain(client: PublicClient, nonceId: string, current: Signed): Promise<PayoutOutcome> {
    await client.sendRawTransaction({ serializedTransaction: current.raw as Hex }).catch(() => undefined);
    await recordBroadcast(this.db, nonceId, current.txHash);
    return standing(current);
  }

  /** Whether the node has the transaction (pooled or mined); a lookup that fails is no answer, and throws. */
  private async nodeKnows(client: PublicClient, hash: string): Promise<boolean> {
    try {
      await client.getTransaction({ hash: hash as Hex });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw error;
    }
  }

  /** The chain's head as far as any answer, or the watchers' linked chain, has shown it: never lower than one seen before. */
  private async head(client: PublicClient, network: string): Promise<bigint> {
    const [answered, linked] = await Promise.all([client.getBlockNumber({ cacheTime: 0 }), linkedHeight(this.db, network)]);
    const highest = [answered, linked ?? 0n, this.heights.get(network) ?? 0n].reduce((a, b) => (a > b ? a : b));
    this.heights.set(network, highest);
    return highest;
  }

  /**
   * The market's fees as of block `height`: its base fee with viem's margin (×1.2) plus the tip the node suggests.
   * A backend without the block refuses, rather than price from an older block whose base fee may be far lower.
   */
  private async feesAt(client: PublicClient, height: bigint): Promise<Eip1559Fees> {
    const [block, tip] = await Promise.all([client.getBlock({ blockNumber: height }), client.estimateMaxPriorityFeePerGas()]);
    if (block.baseFeePerGas === null) throw new Error(`block ${height} has no base fee: the chain does not price EIP-1559 transactions`);
    return { maxFeePerGas: (block.baseFeePerGas * 6n) / 5n + tip, maxPriorityFeePerGas: tip };
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
   * What the chain says of the nonce: the head first, then every transaction's receipt, then the wallet's nonce
   * counts (of the address the nonce belongs to, whatever the signer is now); and when the count at depth says the
   * nonce is used while no receipt was found, the transaction that used it, from the block where the count passed it.
   */
  private async observe(client: PublicClient, row: NonceRow, confirmationsRequired: bigint): Promise<NonceObservation> {
    const head = await this.head(client, row.network);
    const nonce = BigInt(row.nonce);
    const seen: NonceObservation = { nonce, head, confirmationsRequired, mined: null, usedAtDepth: 0n, usedAtHead: 0n, usedBy: null };
    for (const tx of row.txs) {
      const receipt = await this.receipt(client, tx.tx_hash);
      if (receipt) {
        seen.mined = { txHash: tx.tx_hash, purpose: tx.purpose, blockNumber: receipt.blockNumber, succeeded: receipt.status === 'success' };
        return seen;
      }
    }
    const wallet = row.from_address as Address;
    const depthBlock = head - confirmationsRequired + 1n;
    const [atDepth, atHead] = await Promise.all([
      depthBlock < 0n ? 0 : client.getTransactionCount({ address: wallet, blockNumber: depthBlock }),
      client.getTransactionCount({ address: wallet, blockNumber: head }),
    ]);
    const usedAtDepth = BigInt(atDepth);
    const usedBy = usedAtDepth > nonce ? await this.nonceUser(client, wallet, nonce, depthBlock, row) : null;
    return { ...seen, usedAtDepth, usedAtHead: BigInt(atHead), usedBy };
  }

  /**
   * The transaction at `nonce` of `wallet`, read from the block where the wallet's count first passed the nonce (found
   * by halving, down from `usedBy`, where it is passed); null when the answers disagree and no block shows one. The
   * counts are asked at block numbers: a node without the block refuses rather than answer another height.
   */
  private async nonceUser(client: PublicClient, wallet: Address, nonce: bigint, usedBy: bigint, row: NonceRow): Promise<{ txHash: string; ours: boolean } | null> {
    const countAt = async (block: bigint) => BigInt(await client.getTransactionCount({ address: wallet, blockNumber: block }));
    let passed = usedBy;
    let before: bigint;
    for (let step = 1n; ; step *= 2n) {
      if (passed === 0n) return null;
      before = passed > step ? passed - step : 0n;
      if ((await countAt(before)) <= nonce) break;
      passed = before;
    }
    while (passed - before > 1n) {
      const middle = (passed + before) / 2n;
      if ((await countAt(middle)) > nonce) passed = middle;
      else before = middle;
    }
    const block = await client.getBlock({ blockNumber: passed, includeTransactions: true });
    const used = block.transactions.find((tx) => tx.nonce === Number(nonce) && tx.from.toLowerCase() === wallet.toLowerCase());
    if (!used) return null;
    return { txHash: used.hash, ours: row.txs.some((tx) => tx.tx_hash.toLowerCase() === used.hash.toLowerCase()) };
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

  // Gaps --------------------------------------------------------------------------------------------------

  /**
   * Fills the network's nonce gaps: a nonce released (nothing was signed at it) that no payout took within
   * `gapFillAfterSeconds`, while a later nonce waits behind it, gets a zero-value self-transfer at the market fee
   * (the operator's cost), sent again until the chain has used the nonce. Its failures never name the endpoint.
   */
  async fillGaps(network: string): Promise<number> {
    return this.fillGapsOnce(network).catch((error: unknown) => {
      throw withoutEndpoint(error);
    });
  }

  private async fillGapsOnce(network: string): Promise<number> {
    const client = this.client(network);
    const gaps = await claimGaps(
      this.db,
      { network, from: this.signer.address },
      { graceSeconds: this.options.gapFillAfterSeconds, rebroadcastSeconds: this.options.rebroadcastAfterSeconds },
    );
    if (gaps.length === 0) return 0;
    await this.checkChain(client, network);
    const height = await this.head(client, network);
    const used = BigInt(await client.getTransactionCount({ address: this.signer.address, blockNumber: height }));
    let filled = 0;
    for (const gap of gaps) {
      if (BigInt(gap.nonce) < used) {
        await markFilled(this.db, gap.id);
        filled++;
      } else if (gap.raw === null) {
        const fees = await this.feesAt(client, height);
        const raw = await this.signer.signTransaction({
          type: 'eip1559',
          chainId: this.catalog.network(network)!.chain_id!,
          nonce: Number(gap.nonce),
          to: this.signer.address,
          value: 0n,
          gas: SELF_TRANSFER_GAS,
          maxFeePerGas: fees.maxFeePerGas,
          maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        });
        const signed: Signed = { raw, txHash: keccak256(raw), purpose: 'filler' };
        if (await recordFiller(this.db, gap.id, signed)) await this.sendAgain(client, gap.id, signed);
      } else if (gap.rebroadcast_due) {
        await this.sendAgain(client, gap.id, { raw: gap.raw, txHash: gap.tx_hash!, purpose: 'filler' });
      }
    }
    return filled;
  }
}

/** An unmined current transaction: the payout's own is out; a cancellation keeps the payout open until mined. */
function standing(current: Signed): PayoutOutcome {
  if (current.purpose === 'payout') return { kind: 'sent', txHash: current.txHash };
  return unknown(`A cancellation (${current.txHash}) is sent at the payout's nonce: the payout fails once it is mined, or completes if its own transaction is mined first.`);
}

function notPaidReason(verdict: Extract<ReturnType<typeof nonceVerdict>, { kind: 'not_paid' }>, nonce: bigint): string {
  switch (verdict.proof) {
    case 'reverted':
      return `The transaction ${verdict.txHash} reverted on chain.`;
    case 'cancelled':
      return `Cancelled: ${verdict.txHash} was mined at the payout's nonce ${nonce} instead of its transfer; nothing was sent.`;
    case 'nonce_used_elsewhere':
      return `Nonce ${nonce} of the hot wallet was used by ${verdict.txHash}, a transaction that is not this payout's; nothing was sent.`;
  }
}
