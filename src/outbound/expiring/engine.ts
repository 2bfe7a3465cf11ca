import type { Catalog } from '../../domain/catalog.js';
import { fromBaseUnits } from '../../domain/money.js';
import type { ExpiringChainDriver, FinalPoint } from '../../providers/chains/expiring-driver.js';
import type { Database } from '../../store/database.js';
import { payoutTxs, recordAbsence, recordBroadcast, recordLanded, recordSigned, type ExpiringTx } from '../../store/expiring-payouts.js';
import { transferOf, unknown, waitingForFeeCoin, waitingForFunds, type AtBoundary, type HotWallet, type NotSentProof, type PayoutOutcome, type PayoutRequest } from '../outcomes.js';
import { expiryVerdict } from './expiry-verdict.js';

export interface ExpiringPayoutOptions {
  /**
   * Transactions signed for one payout at most: each one after the first only once the one before expired
   * unlanded. Then the payout fails (`expired`): a node that keeps refusing it is no transient expiry.
   */
  maxSignings: number;
  /**
   * Seconds between two sightings of a transaction past its deadline and landed nowhere (each from an answer proving
   * its node's height) before it is recorded expired: the second, on a later attempt, is what `expired` rests on.
   */
  expiryConfirmSeconds: number;
  atBoundary?: AtBoundary;
}

const notSent = (proof: NotSentProof, reason: string): PayoutOutcome => ({ kind: 'not_sent', proof, reason });
const LEASE_LOST = 'the lease on the payout was lost, or another process signed it first';

/**
 * Live payouts on chains whose signed transaction carries its own deadline (Tron, Solana), one step per call,
 * answering a closed outcome (docs/money-out.md, "Chains without nonces: expiring transactions"). A transaction
 * is recorded (bytes, id, deadline) under the payout's lease before any broadcast; only recorded bytes are sent,
 * and sent again while open. A new transaction is signed only once every earlier one is proven expired (past its
 * deadline, landed nowhere as answers proving their node's height saw it on two attempts `expiryConfirmSeconds`
 * apart, never seen landed by any node), so at most one of a payout's transactions can ever land. An expired
 * transaction is signed afresh (within the fee the quote charged) up to `maxSignings` times; funds are released
 * only on proof (`not_sent`), and anything in doubt is `unknown`.
 */
export class ExpiringPayouts implements HotWallet {
  constructor(
    private readonly db: Database,
    private readonly catalog: Catalog,
    private readonly driver: ExpiringChainDriver,
    private readonly options: ExpiringPayoutOptions,
  ) {}

  advance(request: PayoutRequest): Promise<PayoutOutcome> {
    return this.advanceOnce(request).catch((error: unknown) => unknown(error instanceof Error ? error.message : String(error)));
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
    // The final point first: a node whose answer proves it had reached it has every transaction landed by then.
    const final = await this.driver.finalPoint(request.network);
    const answer = await this.driver.lookup(request.network, tx, final);
    // Once any node showed it landed, no later "not found" (a node behind, or a fork that dropped it) makes it expired.
    if (answer.found) await recordLanded(this.db, tx.txId);
    const required = BigInt(this.catalog.pair(request.asset, request.network)!.confirmations_required);
    const verdict = expiryVerdict({ deadline: tx.deadline, finalPoint: final.point, found: answer.found, absenceProven: answer.found === null && answer.absenceProven });
    switch (verdict.kind) {
      case 'paid':
        // Final in the chain's sense; the catalog's confirmations are counted on top, from the final head read first.
        return final.height - answer.found!.block + 1n >= required ? { kind: 'confirmed', txHash: tx.txId } : { kind: 'sent', txHash: tx.txId };
      case 'not_paid':
        if (verdict.proof === 'reverted') return notSent('reverted', `The transaction ${tx.txId} failed on chain (out of energy, or reverted); nothing was sent.`);
        return this.expiredSighting(request, tx, final);
      case 'landed_shallow':
        return { kind: 'sent', txHash: tx.txId };
      case 'unproven':
        return unknown(`${tx.txId} is past its deadline and the node that answered did not know it, but its answer does not prove it had reached the final point (a backend behind the others); looked up again.`);
      case 'open':
        if (request.cancelRequested) {
          return unknown(`Cancellation requested: ${tx.txId} can still land until its deadline; the payout fails once it has passed unlanded.`);
        }
        return this.broadcast(request, tx);
    }
  }

  /** One sighting of the transaction past its deadline, landed nowhere at a proven height: `expired` only on a later, agreeing one. */
  private async expiredSighting(request: PayoutRequest, tx: ExpiringTx, final: FinalPoint): Promise<PayoutOutcome | 'expired'> {
    switch (await recordAbsence(this.db, request.lease, tx.txId, final.point, this.options.expiryConfirmSeconds)) {
      case 'expired':
        return 'expired';
      case 'lease_lost':
        return unknown(LEASE_LOST);
      case 'landed':
        return unknown(`A node showed ${tx.txId} landed, and now none knows it past its deadline: never taken as expired (it may have landed); an operator decides.`);
      case 'first':
      case 'waiting':
        return unknown(
          `${tx.txId} is past its deadline and landed nowhere as a node at the final point saw it; believed once a later attempt, at least ${this.options.expiryConfirmSeconds} s on, sees the same.`,
        );
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
    const { held, needed } = await this.driver.funds(transferOf(request));
    if (held < needed) return waitingForFunds(request, fromBaseUnits(held, this.catalog.pair(request.asset, request.network)!.decimals).toFixed());
    const answer = await this.driver.sign(transferOf(request), request.feeCap);
    if ('refused' in answer) return notSent(proof, `${answer.refused}${expired}`);
    if ('short' in answer) {
      const coin = this.catalog.network(request.network)!.native_asset;
      const decimals = this.catalog.pair(coin, request.network)!.decimals;
      return waitingForFeeCoin(request, coin, fromBaseUnits(answer.short.held, decimals).toFixed(), fromBaseUnits(answer.short.needed, decimals).toFixed());
    }
    const tx: ExpiringTx = { ...answer.signed, signing: signed + 1, status: 'signed' };
    if (!(await recordSigned(this.db, request.lease, request.network, tx))) return unknown(LEASE_LOST);
    await this.options.atBoundary?.('signed', request.payoutId);
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
    await this.options.atBoundary?.('broadcast', request.payoutId);
    await recordBroadcast(this.db, tx.txId);
    return { kind: 'sent', txHash: tx.txId };
  }
}
