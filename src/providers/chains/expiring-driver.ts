import type { Deadline } from '../../domain/chain-deadlines.js';
import type { PayoutTransfer } from './payout-transfer.js';

/** A transfer signed for a payout: its id, the bytes to broadcast (hex) and when it can no longer land. */
export interface SignedTransfer {
  txId: string;
  raw: string;
  deadline: Deadline;
}

/** The chain's final point: a deadline's measure (a block height, or a block time in ms) and the final head's number. */
export interface FinalPoint {
  point: bigint;
  height: bigint;
}

export type Lookup = { found: { final: boolean; succeeded: boolean; block: bigint } } | { found: null; absenceProven: boolean };

/**
 * What one chain without nonces (Tron, Solana) does for the expiring-payout engine (src/outbound/expiring/): build
 * and sign, broadcast, read the final point, look up. Each call reads the chain afresh and throws when no node answers.
 */
export interface ExpiringChainDriver {
  /**
   * Builds and signs the transfer with a near deadline, its network fee at most `feeCap` (the native asset, decimal
   * string); `refused` (nothing signed) when it would fail or costs more now; `short` (nothing signed) when the hot
   * wallet's native coin cannot pay it: it holds `held`, the transfer can take `needed` (the fee at most, and the
   * amount of a native transfer), in base units.
   */
  sign(transfer: PayoutTransfer, feeCap: string): Promise<{ signed: SignedTransfer } | { refused: string } | { short: { held: bigint; needed: bigint } }>;
  /** What the hot wallet holds of the transfer's asset now, and what the transfer sends, in base units. */
  funds(transfer: PayoutTransfer): Promise<{ held: bigint; needed: bigint }>;
  /** Sends signed bytes: `accepted` when a node holds them (taken now, or already known to it). */
  broadcast(network: string, raw: string): Promise<{ accepted: true } | { accepted: false; reason: string }>;
  /**
   * The chain's final point now, from one answer: what deadlines are compared with (`point`), and where the final
   * head is (`height`: the block or slot number lookups state where a transaction landed in).
   */
  finalPoint(network: string): Promise<FinalPoint>;
  /**
   * Where the transaction landed (`final`: in the final chain), or, when the node asked does not know it, whether
   * its answer proves that node had the final chain through the transaction's deadline, as of `final` (read
   * first, maybe from another backend): only such an absence is evidence (docs/money-out.md, "What an RPC answer
   * proves").
   */
  lookup(network: string, tx: SignedTransfer, final: FinalPoint): Promise<Lookup>;
}
