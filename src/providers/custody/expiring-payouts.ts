import type { Catalog } from '../../domain/catalog.js';
import type { Database } from '../../store/database.js';
import { payoutTxs, recordBroadcast, recordExpired, recordSigned, type ExpiringTx } from '../../store/expiring-payouts.js';
import { expiryVerdict, type Deadline } from '../chains/expiry-verdict.js';
import type { NotSentProof, PayoutBoundary, PayoutOutcome, PayoutRequest } from './custody-provider.js';

/** A transfer signed for a payout: its id, the bytes to broadcast (hex) and when it can no longer land. */
export interface SignedTransfer {
  txId: string;
  raw: string;
  deadline: Deadline;
}

/** What one chain without nonces does for the engine; each call reads the chain afresh and throws when no node answers. */
export interface ExpiringChainDriver {
  /**
   * Builds and signs the payout's transfer with a near deadline, its network fee at most `feeCap` (the native
   * asset, decimal string); `refused` (nothing signed) when it would fail or costs more now.
   */
  sign(request: PayoutRequest, feeCap: string): Promise<{ signed: SignedTransfer } | { refused: string }>;
  /** Sends signed bytes: `accepted` when a node holds them (taken now, or already known to it). */
  broadcast(network: string, raw: string): Promise<{ accepted: true } | { accepted: false; reason: string }>;
  /** The chain's final point now: what deadlines are compared with (`point`), and the height of the final head. */
  finalPoint(network: string): Promise<{ point: bigint; height: bigint }>;
  /** Where the transaction landed (`final`: in the final chain), or null when no node knows it. */
  lookup(network: string, txId: string): Promise<{ final: boolean; succeeded: boolean; block: bigint } | null>;
}

export interface ExpiringPayoutOptions {
  /**
   * Transactions signed for one payout at most: each one after the first only once the one before expired
   * unlanded. Then the payout fails (`expired`): a node that keeps refusing it is no transient expiry.
   */
  maxSignings: number;
  /** Called at each boundary; a test makes it never return, as a killed process never goes on. */
  atBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>;
}

const unknown = (reason: string): PayoutOutcome => ({ kind: 'unknown', reason });
const notSent = (proof: NotSentProof, reason: string): PayoutOutcome => ({ kind: 'not_sent', proof, reason });
const LEASE_LOST = 'the lease on the payout was lost, or another process signed it first';

/**
 * Live payouts on chains whose signed transaction carries its own deadline (Tron, Solana), one step per call,
 * answering a closed outcome (docs/money-out.md, "Chains without nonces: expiring transactions"). A transaction
 * is recorded (bytes, id, deadline) under the payout's lease before any broadcast; only recorded bytes are sent,
 * and sent again while open. A new transaction is signed only once every earlier one is proven expired (past its
 * deadline at the final point read before the lookup, landed nowhere), so at most one of a payout's transactions
 * can ever land. An expired transaction is signed afresh (within the fee the quote charged) up to `maxSignings`
 * times; funds are released only on proof (`not_sent`), and anything in doubt is `unknown`.
 */
export class ExpiringPayouts {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly driver: ExpiringChainDriver,
    private readonly options: ExpiringPayoutOptions,
  ) {}

  private at(boundary: PayoutBoundary, payoutId: string): Promise<void> {
    return this.options.atBoundary?.(boundary, payoutId) ?? Promise.resolve();
  }

  async advance(request: PayoutRequest): Promise<PayoutOutcome> {
    try {
      return await this.advanceOnce(request);
    } catch (error) {
      return unknown(error instanceof Error ? error.message : String(error));
    }
  }

  private async advanceOnce(request: PayoutRequest): Promise<PayoutOutcome> {
    const txs = await payoutTxs(this.db, request.payoutId);
    const open = txs.find((tx) => tx.status !== 'expired');
    if (open) {
      const outcome = await this.follow(request, open);
      if (outcome !== 'expired') return outcome;
    }
    return this.signNext(request, txs.length);
  }

  /** What became of the open transaction; `expired` once it is proven never to land (and recorded so). */
  private async follow(request: PayoutRequest, tx: ExpiringTx): Promise<PayoutOutcome | 'expired'> {
    // The final point first: a transaction that landed by then is in the lookup's answer.
    const final = await this.driver.finalPoint(request.network);
    const found = await this.driver.lookup(request.network, tx.txId);
    const required = BigInt(this.catalog.pair(request.asset, request.network)!.confirmations_required);
    const verdict = expiryVerdict({ deadline: tx.deadline, finalPoint: final.point, found });
    switch (verdict.kind) {
      case 'paid':
        // Final in the chain's sense; the catalog's confirmations are counted on top, from the final head read first.
        return final.height - found!.block + 1n >= required ? { kind: 'confirmed', txHash: tx.txId } : { kind: 'sent', txHash: tx.txId };
      case 'not_paid':
        if (verdict.proof === 'reverted') return notSent('reverted', `The transaction ${tx.txId} failed on chain (out of energy, or reverted); nothing was sent.`);
        return (await recordExpired(this.db, request.lease, tx.txId)) ? 'expired' : unknown(LEASE_LOST);
      case 'landed_shallow':
        return { kind: 'sent', txHash: tx.txId };
      case 'open':
        if (request.cancelRequested) {
          return unknown(`Cancellation requested: ${tx.txId} can still land until its deadline; the payout fails once it has passed unlanded.`);
        }
        return this.broadcast(request, tx);
    }
  }

  /** Nothing of the payout can land any more: a transaction is signed next, or the payout ends unsent. */
  private async signNext(request: PayoutRequest, signed: number): Promise<PayoutOutcome> {
    // Once anything was signed, "not sent" rests on every one of them having expired.
    const proof: NotSentProof = signed === 0 ? 'nothing_signed' : 'expired';
    const expired = signed === 0 ? '' : ` Its ${signed} transaction(s) expired unlanded.`;
    if (request.cancelRequested) return notSent(proof, `Cancelled by the operator; nothing was sent.${expired}`);
    if (signed >= this.options.maxSignings) return notSent(proof, `Nothing was sent.${expired} No transaction is signed again.`);
    if (request.feeCap === null) return unknown('no fresh price converts the quoted network fee into the native asset; retried');
    const answer = await this.driver.sign(request, request.feeCap);
    if ('refused' in answer) return notSent(proof, `${answer.refused}${expired}`);
    const tx: ExpiringTx = { ...answer.signed, signing: signed + 1, status: 'signed' };
    if (!(await recordSigned(this.db, request.lease, request.network, tx))) return unknown(LEASE_LOST);
    await this.at('signed', request.payoutId);
    return this.broadcast(request, tx);
  }

  /**
   * The recorded bytes, sent (again). A refusal proves nothing: an earlier send may have been taken, or another
   * node may hold them, so only the deadline ends the transaction.
   */
  private async broadcast(request: PayoutRequest, tx: ExpiringTx): Promise<PayoutOutcome> {
    let answer: Awaited<ReturnType<ExpiringChainDriver['broadcast']>>;
    try {
      answer = await this.driver.broadcast(request.network, tx.raw);
    } catch (error) {
      return unknown(`no answer to the broadcast of ${tx.txId} (${error instanceof Error ? error.message : String(error)}); it may still land until its deadline`);
    }
    if (!answer.accepted) return unknown(`The node refused ${tx.txId} (${answer.reason}); it is sent again until it lands or its deadline passes.`);
    await this.at('broadcast', request.payoutId);
    await recordBroadcast(this.db, tx.txId);
    return { kind: 'sent', txHash: tx.txId };
  }
}

