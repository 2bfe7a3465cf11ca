import {
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Address,
  type Transaction,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { FailedTransactionMetadata, type LiteSVM } from 'litesvm';

/** How many blocks a blockhash stays valid for, as a Solana node states it (lastValidBlockHeight = its height + 150). */
const BLOCKHASH_LIFETIME = 150n;
/**
 * Slots run ahead of block heights, as on a real cluster where some slots produce no block: a driver comparing a
 * slot with lastValidBlockHeight (or the reverse) is caught.
 */
export const SLOT_OFFSET = 1_000n;

interface Landed {
  height: bigint;
  err: string | null;
}

/** What the test makes the node answer to sendTransaction. */
export type SendMode =
  /** takes it into its pool: it lands at the next block while its blockhash is valid */
  | 'take'
  /** answers the signature, and the transaction is lost on the way to a leader (never lands) */
  | 'drop'
  /** answers a JSON-RPC error and keeps nothing */
  | 'refuse'
  /** takes it into its pool, but the answer is lost (the connection is cut) */
  | 'lose';

const min = (a: bigint, b: bigint) => (a < b ? a : b);

export type ChainAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } } | 'lost';

/**
 * The chain a Solana payout driver talks to, over litesvm (the real programs): block heights the test advances
 * (litesvm has none), blockhashes valid for 150 blocks, a pool of sent transactions that land at the next block
 * `mine`s while valid — executed by litesvm from their wire bytes — and a finalized height that can lag, each call
 * answerable by a backend behind the others (`behind`). litesvm's own blockhash check is off: this chain decides
 * validity by height, as validators do.
 */
export function payoutChain(svm: LiteSVM) {
  svm.withBlockhashCheck(false);
  let height = 1n;
  let finalized = 1n;
  const validUntil = new Map<string, bigint>();
  const pool = new Map<string, { tx: Transaction; blockhash: string }>();
  const landed = new Map<string, Landed>();
  const chain = {
    send: 'take' as SendMode,
    /** Blocks between the head and the finalized block. */
    finalityLag: 0n,
    /** The micro-lamports per compute unit recent transactions paid, as getRecentPrioritizationFees answers them. */
    priorityFees: [] as bigint[],
    /**
     * The node's status lookups miss landed transactions (a node behind the others, or without history yet), and it
     * answers a landed transaction sent again as preflight does: "already been processed".
     */
    forgetful: false,
    /**
     * How many blocks behind the chain the backend answering this call is (0: up to date), asked once per call: a
     * load-balanced endpoint whose nodes lag each other. A lagging backend answers heights, statuses and
     * `context.slot` as of its own head: the finalized block as it stood then, transactions of newer blocks absent.
     */
    behind: (_method: string): bigint => 0n,
    /** Every signature sendTransaction was given, in order (with repeats). */
    received: [] as string[],
    get height() {
      return height;
    },
    get finalized() {
      return finalized;
    },
    /** Produces `blocks` blocks: the first lands what the pool holds (still valid), each retires the blockhash. */
    mine(blocks = 1) {
      for (let i = 0; i < blocks; i++) {
        height += 1n;
        for (const [signature, { tx, blockhash }] of pool) {
          pool.delete(signature);
          if (landed.has(signature) || height > (validUntil.get(blockhash) ?? -1n)) continue;
          const result = svm.sendTransaction(tx);
          landed.set(signature, { height, err: result instanceof FailedTransactionMetadata ? result.toString() : null });
        }
        svm.expireBlockhash();
        const final = height - chain.finalityLag;
        if (final > finalized) finalized = final;
      }
    },
    /** Mines until the finalized height has passed `lastValidBlockHeight`. */
    mineUntilFinalizedAbove(lastValidBlockHeight: bigint) {
      while (finalized <= lastValidBlockHeight) chain.mine();
    },
    landed: (signature: string) => landed.get(signature) ?? null,
    /** The `lastValidBlockHeight` of a signed transaction, from the blockhash it names. */
    deadlineOf(wire: Uint8Array): bigint {
      const { messageBytes } = getTransactionDecoder().decode(wire);
      return validUntil.get((getCompiledTransactionMessageDecoder().decode(messageBytes) as { lifetimeToken: string }).lifetimeToken)!;
    },
    async tokenBalance(owner: Address, mint: Address): Promise<bigint> {
      const account = svm.getAccount((await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]);
      return account.exists ? getTokenDecoder().decode(account.data).amount : 0n;
    },
    lamports: (owner: Address): bigint => svm.getBalance(owner) ?? 0n,
    /** The answer to a payout driver's JSON-RPC call; null for a method this chain does not serve. */
    answer(method: string, params: unknown[]): ChainAnswer | null {
      const lag = chain.behind(method);
      // The answering backend's head and finalized block.
      const head = height - lag < 1n ? 1n : height - lag;
      const final = lag === 0n ? finalized : min(finalized, head - chain.finalityLag < 1n ? 1n : head - chain.finalityLag);
      const context = { slot: Number(head + SLOT_OFFSET) };
      switch (method) {
        case 'getLatestBlockhash': {
          const blockhash = svm.latestBlockhash();
          if (!validUntil.has(blockhash)) validUntil.set(blockhash, height + BLOCKHASH_LIFETIME);
          return { result: { context, value: { blockhash, lastValidBlockHeight: Number(validUntil.get(blockhash)) } } };
        }
        case 'getAccountInfo': {
          const account = svm.getAccount(params[0] as Address);
          if (!account.exists) return { result: { context, value: null } };
          const data = Buffer.from(account.data).toString('base64');
          const value = { data: [data, 'base64'], executable: account.executable, lamports: Number(account.lamports), owner: account.programAddress, rentEpoch: 0, space: account.data.length };
          return { result: { context, value } };
        }
        case 'getMultipleAccounts': {
          // Reconciliation's balance reads (src/providers/chains/solana/solana-balances.ts).
          const value = (params[0] as Address[]).map((key) => {
            const account = svm.getAccount(key);
            if (!account.exists) return null;
            return { data: [Buffer.from(account.data).toString('base64'), 'base64'], executable: account.executable, lamports: Number(account.lamports), owner: account.programAddress, rentEpoch: 0, space: account.data.length };
          });
          return { result: { context, value } };
        }
        case 'getMinimumBalanceForRentExemption':
          return { result: Number(svm.minimumBalanceForRentExemption(BigInt(params[0] as number))) };
        case 'getRecentPrioritizationFees':
          return { result: chain.priorityFees.map((fee, i) => ({ slot: Number(height + SLOT_OFFSET) - i, prioritizationFee: Number(fee) })) };
        case 'getEpochInfo': {
          const blockHeight = committed(params[0], head, final);
          return { result: { absoluteSlot: Number(blockHeight + SLOT_OFFSET), blockHeight: Number(blockHeight), epoch: 0, slotIndex: Number(blockHeight + SLOT_OFFSET), slotsInEpoch: 432_000, transactionCount: null } };
        }
        case 'getSignatureStatuses': {
          const value = (params[0] as string[]).map((signature) => {
            const tx = chain.forgetful ? undefined : landed.get(signature);
            if (!tx || tx.height > head) return null;
            const isFinal = tx.height <= final;
            const err = tx.err && { InstructionError: [0, { Custom: 1 }] };
            return { slot: Number(tx.height + SLOT_OFFSET), confirmations: isFinal ? null : Number(head - tx.height), err, status: err ? { Err: err } : { Ok: null }, confirmationStatus: isFinal ? 'finalized' : 'confirmed' };
          });
          return { result: { context, value } };
        }
        case 'sendTransaction': {
          const wire = new Uint8Array(getBase64Encoder().encode(params[0] as string));
          const tx = getTransactionDecoder().decode(wire);
          const signature = getSignatureFromTransaction(tx);
          chain.received.push(signature);
          if (chain.send === 'refuse') return { error: { code: -32005, message: 'Node is behind by 42 slots' } };
          if (chain.forgetful && landed.has(signature)) {
            const message = 'Transaction simulation failed: This transaction has already been processed';
            return { error: { code: -32002, message, data: { err: 'AlreadyProcessed', logs: [], accounts: null, unitsConsumed: 0 } } };
          }
          if (chain.send !== 'drop' && !landed.has(signature)) {
            const blockhash = (getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as { lifetimeToken: string }).lifetimeToken;
            pool.set(signature, { tx, blockhash });
          }
          return chain.send === 'lose' ? 'lost' : { result: signature };
        }
        default:
          return null;
      }
    },
  };
  /** The height at the commitment asked: the head for processed and confirmed; finalized when none is named, as nodes default. */
  function committed(config: unknown, head: bigint, final: bigint): bigint {
    const commitment = (config as { commitment?: string } | undefined)?.commitment ?? 'finalized';
    return commitment === 'finalized' ? final : head;
  }
  return chain;
}

export type PayoutChain = ReturnType<typeof payoutChain>;
