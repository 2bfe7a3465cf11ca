/**
 * Builds and signs the one transaction an SPL token payout (USDC, USDT on Solana) sends from the hot wallet. The
 * Solana payout driver (src/providers/chains/solana/payout-driver.ts) records the result under the payout's lease before
 * broadcasting it, and proves it dead after `lastValidBlockHeight` before signing another.
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type Signature,
  type TransactionPartialSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { PriorityFee } from './spl-payout-fee.js';

export interface SplPayoutRequest {
  /** The hot wallet: it pays the fee (and any rent), owns the source token account and signs alone. */
  hotWallet: TransactionPartialSigner;
  /** A mint of the classic SPL Token program, as mainnet USDC and USDT are (Token-2022 mints are not handled). */
  mint: Address;
  /** The mint's decimals: transferChecked makes the token program refuse the transfer if they are wrong. */
  decimals: number;
  /** The wallet being paid; the tokens go to its associated token account for the mint. */
  destinationOwner: Address;
  /** In the mint's base units. */
  amount: bigint;
  /**
   * Whether to create the destination's associated token account in the same transaction (idempotently: it costs
   * nothing when the account already exists). Only the quote's creator knows whether it priced the rent in.
   */
  createDestinationAccount: boolean;
  /** A recent blockhash and the last block height at which a transaction referencing it can be included. */
  blockhash: { blockhash: Blockhash; lastValidBlockHeight: bigint };
  priorityFee: PriorityFee;
}

export interface SignedSplPayout {
  /** The hot wallet's signature, base58: the transaction's id on chain. */
  signature: Signature;
  /** The signed transaction as sent to `sendTransaction` (base64 encoding). */
  wireTransaction: Base64EncodedWireTransaction;
  /**
   * The transaction can be included in no block above this height: once the finalized height exceeds it and a
   * status lookup searching history finds nothing, it has provably never landed and never will.
   */
  lastValidBlockHeight: bigint;
}

const associatedTokenAccount = async (owner: Address, mint: Address): Promise<Address> =>
  (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

export async function signSplPayout(request: SplPayoutRequest): Promise<SignedSplPayout> {
  const { hotWallet, mint, decimals, destinationOwner, amount, blockhash, priorityFee } = request;
  // A zero transfer succeeds on chain and pays nothing but fees: always a bug upstream.
  if (amount <= 0n) throw new RangeError(`a payout amount must be positive, got ${amount}`);
  const [source, destination] = await Promise.all([
    associatedTokenAccount(hotWallet.address, mint),
    associatedTokenAccount(destinationOwner, mint),
  ]);
  const instructions = [
    ...computeBudget(priorityFee),
    ...(request.createDestinationAccount
      ? [getCreateAssociatedTokenIdempotentInstruction({ payer: hotWallet, ata: destination, owner: destinationOwner, mint })]
      : []),
    getTransferCheckedInstruction({ source, mint, destination, authority: hotWallet, amount, decimals }),
  ];
  return signPayout(hotWallet, blockhash, instructions);
}

/** A version 0 transaction of `instructions`, paid and signed by the hot wallet alone, valid while its blockhash is. */
export async function signPayout(
  hotWallet: TransactionPartialSigner,
  blockhash: SplPayoutRequest['blockhash'],
  instructions: Instruction[],
): Promise<SignedSplPayout> {
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(hotWallet, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(blockhash, message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
  return {
    signature: getSignatureFromTransaction(transaction),
    wireTransaction: getBase64EncodedWireTransaction(transaction),
    lastValidBlockHeight: blockhash.lastValidBlockHeight,
  };
}

/** The compute budget instructions every payout starts with: the limit its priority fee is charged on, and the price. */
export const computeBudget = (priorityFee: PriorityFee): Instruction[] => [
  getSetComputeUnitLimitInstruction({ units: priorityFee.computeUnitLimit }),
  getSetComputeUnitPriceInstruction({ microLamports: priorityFee.microLamportsPerComputeUnit }),
];
