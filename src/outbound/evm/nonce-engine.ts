import { parseUnits } from 'viem';
import { fromBaseUnits } from '../../domain/money.js';
import type { Catalog } from '../../domain/catalog.js';
import { replacementFees, type Eip1559Fees } from '../../providers/chains/evm-fees.js';
import type { PayoutTransfer } from '../../providers/chains/payout-transfer.js';
import { SELF_TRANSFER_GAS, type EvmPayoutDriver } from '../../providers/chains/evm-payout-driver.js';
import { endpointFreeMessage as wordsOf } from '../../providers/chains/rpc-errors.js';
import type { Database } from '../../store/database.js';
import {
  allocateNonce,
  findPayoutNonce,
  recordBroadcast,
  recordNotSentSighting,
  recordSigned,
  releaseUnsignedNonce,
  restoreCurrent,
  type NonceRow,
  type Signed,
} from '../../store/evm-payouts.js';
import { lockLeased, type Lease } from '../../store/payout-leases.js';
import { transferOf, unknown, waitingForFeeCoin, waitingForFunds, type AtBoundary, type HotWallet, type PayoutOutcome, type PayoutRequest } from '../outcomes.js';
import { fillGaps } from './gap-filler.js';
import type { ChainHeights } from './heights.js';
import { nonceVerdict, type NonceObservation } from './nonce-verdict.js';

/** Heights a would-fail verdict is read at, at most, while later answers show a higher head. */
const WOULD_FAIL_LOOKS = 3;

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
  atBoundary?: AtBoundary;
}

/**
 * Live EVM payouts from the hot wallet, one step per call, answering a closed outcome (docs/money-out.md, "Live
 * payouts: states and leases"). Nothing signed yet: the transfer's gas is estimated and its fee capped by what the
 * quote charged, a nonce taken under the payout's lease, signed, recorded, then broadcast; only a recorded
 * transaction is ever broadcast, and a recorded one is never overwritten. Something signed: every transaction at the
 * nonce is looked up, and the one mined decides, at the confirmations. Unmined: the current transaction is sent
 * again, replaced at a higher fee when stuck, or, when the node refuses it, cancelled by a zero-value self-transfer at
 * its nonce. Funds are released only on proof (`not_sent`); anything the node leaves in doubt is `unknown`. The chain
 * is read and signed for through the driver (src/providers/chains/evm-payout-driver.ts); errors never name the RPC URL.
 */
export class EvmNonceEngine implements HotWallet {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly driver: EvmPayoutDriver,
    private readonly heights: ChainHeights,
    private readonly options: EvmPayoutOptions,
  ) {}

  advance(request: PayoutRequest): Promise<PayoutOutcome> {
    return this.advanceOnce(request).catch((error: unknown) => unknown(wordsOf(error)));
  }

  /** Nonce gaps left by payouts refused after taking a nonce are filled between payouts. */
  async maintain(network: string): Promise<void> {
    await fillGaps(this.db, this.driver, this.heights, network, this.options);
  }

  private async advanceOnce(request: PayoutRequest, lookedAgain = false): Promise<PayoutOutcome> {
    const row = await findPayoutNonce(this.db, request.payoutId, this.options.rebroadcastAfterSeconds);
    if (!row?.raw) {
      if (request.cancelRequested) return this.endUnsigned(request.lease, 'Cancelled by the operator before anything was signed.');
      return this.signAndSend(request);
    }
    await this.driver.checkChain(request.network);
    const seen = await this.observe(row, BigInt(this.catalog.pair(request.asset, request.network)!.confirmations_required));
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
        if (request.cancelRequested && row.current_purpose === 'payout') return this.cancel(request, row, 'Cancelled by the operator');
        return this.sendCurrent(request, row, seen.usedAtHead);
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
    return (await this.releaseNonce(lease)) ? { kind: 'not_sent', proof: 'nothing_signed', reason } : unknown('the lease on the payout was lost');
  }

  /** The nonce an unsigned payout holds (if any) goes back, under its lease; false: the lease was lost. */
  private releaseNonce(lease: Lease): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (!(await lockLeased(tx, lease))) return false;
      await releaseUnsignedNonce(tx, lease.payoutId);
      return true;
    });
  }

  private async signAndSend(request: PayoutRequest): Promise<PayoutOutcome> {
    const { network } = request;
    const native = this.catalog.network(network)!.native_asset;
    if (request.feeCap === null) return unknown('no fresh price converts the quoted network fee into the native asset; retried');
    const cap = parseUnits(request.feeCap, this.catalog.pair(native, network)?.decimals ?? 18);
    // Before any state is read: heights and balances of another chain mean nothing here.
    const chainId = await this.driver.checkChain(network);
    const transfer = transferOf(request);
    const funds = await this.shortOfFunds(request, transfer);
    if ('kind' in funds) return funds;
    const { answer: estimate, height } = await this.atHead(network, (at) => this.driver.estimateTransfer(transfer, at), (answer) => 'gas' in answer);
    if ('wouldFail' in estimate) return this.endUnsigned(request.lease, `The transfer would fail on chain: ${estimate.wouldFail}`);
    const { gas } = estimate;
    const [fees, chainNext] = await Promise.all([this.driver.feesAt(network, height), this.driver.pendingNonce(network)]);
    if (gas * fees.maxFeePerGas > cap) {
      return this.endUnsigned(request.lease, `The network fee now (${gas * fees.maxFeePerGas} wei) is above what the quote charged (${cap} wei).`);
    }
    // The fee coin too: a transaction the node would refuse for want of gas money must not be signed (it would take a
    // nonce, then a cancellation nobody can pay for either).
    const { coin } = funds;
    const coinNeeded = gas * fees.maxFeePerGas + (request.asset === native ? funds.needed : 0n);
    if (coin < coinNeeded) {
      if (!(await this.releaseNonce(request.lease))) return unknown('the lease on the payout was lost');
      const decimals = this.catalog.pair(native, network)!.decimals;
      return waitingForFeeCoin(request, native, fromBaseUnits(coin, decimals).toFixed(), fromBaseUnits(coinNeeded, decimals).toFixed());
    }
    const nonce = await allocateNonce(this.db, { network, from: this.driver.wallet }, request.lease, chainNext);
    if (nonce === null) return unknown('the lease on the payout was lost');
    await this.options.atBoundary?.('nonce-allocated', request.payoutId);
    const signed: Signed = { ...(await this.driver.signTransfer(transfer, { chainId, nonce, gas, fees })), purpose: 'payout' };
    const nonceId = await recordSigned(this.db, request.lease, null, signed, cap);
    if (nonceId === null) return unknown('another process signed the payout first, or the lease on it was lost');
    await this.options.atBoundary?.('signed', request.payoutId);
    return this.broadcast(request, nonceId, signed);
  }

  /**
   * A hot wallet short of the payout's asset is no reason to fail it (docs/treasury.md, "Payouts waiting for funds"):
   * the payout stays pending, saying what it waits for, and goes out once the hot wallet holds enough (a sweep, or a
   * top-up by hand). A nonce it took goes back meanwhile, so that the payouts behind it are not held up. Otherwise
   * what the hot wallet holds of the fee coin at the head, for the fee check once the fee is known.
   */
  private async shortOfFunds(request: PayoutRequest, transfer: PayoutTransfer): Promise<PayoutOutcome | { needed: bigint; coin: bigint }> {
    const { answer } = await this.atHead(request.network, (height) => this.driver.funds(transfer, height), ({ held, needed }) => held >= needed);
    if (answer.held >= answer.needed) return answer;
    if (!(await this.releaseNonce(request.lease))) return unknown('the lease on the payout was lost');
    return waitingForFunds(request, fromBaseUnits(answer.held, this.catalog.pair(request.asset, request.network)!.decimals).toFixed());
  }

  /**
   * `read` at the head. An answer `settled` refuses (the transfer would fail, the hot wallet looks short), read at a
   * height that a later answer shows was not the head (a backend behind the others answered first: a hot wallet
   * refilled since would look empty), is read again at the higher one, up to WOULD_FAIL_LOOKS times: only an answer
   * no later head contradicts is acted on.
   */
  private async atHead<T>(network: string, read: (height: bigint) => Promise<T>, settled: (answer: T) => boolean): Promise<{ answer: T; height: bigint }> {
    let height = await this.heights.head(network);
    for (let look = 1; ; look++) {
      const answer = await read(height);
      if (settled(answer)) return { answer, height };
      const head = await this.heights.head(network);
      if (head <= height || look === WOULD_FAIL_LOOKS) return { answer, height };
      height = head;
    }
  }

  /** Sends the current transaction; a refusal of one the node does not have is answered by a cancellation. */
  private async broadcast(request: PayoutRequest, nonceId: string, current: Signed): Promise<PayoutOutcome> {
    const answer = await this.driver.broadcast(request.network, current.raw);
    if (answer.kind === 'unanswered') return unknown(`the node did not answer the broadcast of ${current.txHash}`);
    // Sent before (the first answer was lost): the node has it, or has mined it; that is no refusal.
    if (answer.kind === 'refused' && !(await this.driver.knows(request.network, current.txHash))) {
      if (current.purpose !== 'payout') return unknown(`The node refuses the cancellation ${current.txHash}: ${answer.words}. It is sent again at the next attempt.`);
      const row = await findPayoutNonce(this.db, request.payoutId);
      return this.cancel(request, row!, `The node refused the payout's transaction ${current.txHash} (${answer.words})`);
    }
    await this.options.atBoundary?.('broadcast', request.payoutId);
    await recordBroadcast(this.db, nonceId, current.txHash);
    return standing(current);
  }

  /**
   * A cancellation at the payout's nonce: a zero-value self-transfer within the payout's fee cap, priced to replace
   * its transaction in a node's pool. The payout's transaction is never forgotten: it may still be mined somewhere,
   * and then the payout completes instead.
   */
  private async cancel(request: PayoutRequest, row: NonceRow, why: string): Promise<PayoutOutcome> {
    const previous = this.driver.terms(row.raw!);
    const previousFees = previous.fees!;
    const market = await this.driver.feesAt(request.network, await this.heights.head(request.network));
    const cap = row.fee_cap_wei === null ? previous.gas * previousFees.maxFeePerGas : BigInt(row.fee_cap_wei);
    const fees: Eip1559Fees = replacementFees(previousFees, market, SELF_TRANSFER_GAS, cap) ?? {
      maxFeePerGas: cap / SELF_TRANSFER_GAS,
      maxPriorityFeePerGas: cap / SELF_TRANSFER_GAS,
    };
    const chainId = await this.driver.checkChain(request.network);
    const signed: Signed = { ...(await this.driver.signSelfTransfer({ chainId, nonce: previous.nonce, fees })), purpose: 'cancel' };
    if ((await recordSigned(this.db, request.lease, row.tx_hash, signed)) === null) return unknown('another process changed the payout\'s transaction first, or the lease on it was lost');
    await this.options.atBoundary?.('cancel-signed', request.payoutId);
    const outcome = await this.broadcast(request, row.id, signed);
    return outcome.kind === 'unknown' ? outcome : unknown(`${why}. A cancellation (${signed.txHash}) is sent at its nonce ${previous.nonce}: the payout fails once it is mined, or completes if its own transaction is mined first.`);
  }

  /** The current transaction, unmined: left alone, broadcast (never known to be), or sent again when due. */
  private async sendCurrent(request: PayoutRequest, row: NonceRow, used: bigint): Promise<PayoutOutcome> {
    const current: Signed = { raw: row.raw!, txHash: row.tx_hash!, purpose: row.current_purpose };
    if (row.status !== 'broadcast') return this.broadcast(request, row.id, current);
    if (!row.rebroadcast_due) return standing(current);
    return this.rebroadcast(request, row, current, used);
  }

  /**
   * A transaction unmined for long enough: replaced by one with the same nonce and higher fees within the cap;
   * sent again as it is when it only waits behind an earlier nonce of the wallet, was signed before its cap was
   * recorded, or is at the cap already.
   */
  private async rebroadcast(request: PayoutRequest, row: NonceRow, current: Signed, used: bigint): Promise<PayoutOutcome> {
    const previous = this.driver.terms(current.raw);
    // Waiting behind an earlier transaction of the wallet is no reason to pay more.
    if (previous.nonce > used || previous.fees === null || row.fee_cap_wei === null) return this.sendAgain(request.network, row.id, current);
    const market = await this.driver.feesAt(request.network, await this.heights.head(request.network));
    const fees = replacementFees(previous.fees, market, previous.gas, BigInt(row.fee_cap_wei));
    if (fees === null) {
      const outcome = await this.sendAgain(request.network, row.id, current);
      return outcome.kind === 'sent' ? { ...outcome, atFeeCap: true } : outcome;
    }
    const replacement: Signed = { ...(await this.driver.signReplacement(current.raw, fees)), purpose: current.purpose };
    if ((await recordSigned(this.db, request.lease, current.txHash, replacement)) === null) return standing(current);
    await this.options.atBoundary?.('replacement-signed', request.payoutId);
    const answer = await this.driver.broadcast(request.network, replacement.raw);
    // No answer, or an answer lost and the node has it after all: the replacement stays current.
    if (answer.kind === 'refused' && !(await this.driver.knows(request.network, replacement.txHash))) {
      // Refused: the stuck one is current again; the replacement's hash is still looked up, should the refusal have been wrong.
      await restoreCurrent(this.db, request.payoutId, replacement.txHash, current);
      return unknown(`The node refused the replacement ${replacement.txHash} of ${current.txHash} (${answer.words}); ${current.txHash} stays current.`);
    }
    if (answer.kind === 'accepted') await recordBroadcast(this.db, row.id, replacement.txHash);
    return standing(replacement);
  }

  /** The same signed transaction again, in case the node dropped it; a node that has it, or has mined it, refuses, which is no failure. */
  private async sendAgain(network: string, nonceId: string, current: Signed): Promise<PayoutOutcome> {
    await this.driver.broadcast(network, current.raw);
    await recordBroadcast(this.db, nonceId, current.txHash);
    return standing(current);
  }

  /**
   * What the chain says of the nonce: the head first, then every transaction's receipt, then the wallet's nonce
   * counts (of the address the nonce belongs to, whatever the signer is now); and when the count at depth says the
   * nonce is used while no receipt was found, the transaction that used it, from the block where the count passed it.
   */
  private async observe(row: NonceRow, confirmationsRequired: bigint): Promise<NonceObservation> {
    const { network } = row;
    const head = await this.heights.head(network);
    const nonce = BigInt(row.nonce);
    const seen: NonceObservation = { nonce, head, confirmationsRequired, mined: null, usedAtDepth: 0n, usedAtHead: 0n, usedBy: null };
    for (const tx of row.txs) {
      const receipt = await this.driver.receipt(network, tx.tx_hash);
      if (receipt) {
        seen.mined = { txHash: tx.tx_hash, purpose: tx.purpose, ...receipt };
        return seen;
      }
    }
    const wallet = row.from_address;
    const depthBlock = head - confirmationsRequired + 1n;
    const [usedAtDepth, usedAtHead] = await Promise.all([
      depthBlock < 0n ? 0n : this.driver.nonceAt(network, wallet, depthBlock),
      this.driver.nonceAt(network, wallet, head),
    ]);
    const usedBy = usedAtDepth > nonce ? await this.nonceUser(network, wallet, nonce, depthBlock, row) : null;
    return { ...seen, usedAtDepth, usedAtHead, usedBy };
  }

  /**
   * The transaction at `nonce` of `wallet`, read from the block where the wallet's count first passed the nonce (found
   * by halving, down from `usedBy`, where it is passed); null when the answers disagree and no block shows one. The
   * counts are asked at block numbers: a node without the block refuses rather than answer another height.
   */
  private async nonceUser(network: string, wallet: string, nonce: bigint, usedBy: bigint, row: NonceRow): Promise<{ txHash: string; ours: boolean } | null> {
    const countAt = (block: bigint) => this.driver.nonceAt(network, wallet, block);
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
    const used = await this.driver.transactionAtNonce(network, wallet, nonce, passed);
    if (used === null) return null;
    return { txHash: used, ours: row.txs.some((tx) => tx.tx_hash.toLowerCase() === used.toLowerCase()) };
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
