import type { Address, TransactionPartialSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import type { PriorityFee } from './spl-payout-fee.js';
import { computeBudget, signPayout, type SignedSplPayout, type SplPayoutRequest } from './spl-payout-transaction.js';

/**
 * A SOL payout: the compute budget, then one System transfer from the hot wallet, which signs alone and pays the fee.
 * An account the transfer creates must be left rent-exempt or the runtime refuses the transaction: the driver checks
 * the amount against the rent-exempt minimum before signing (docs/live-solana.md, "SOL payouts").
 */
export async function signSolPayout(request: {
  hotWallet: TransactionPartialSigner;
  destination: Address;
  lamports: bigint;
  blockhash: SplPayoutRequest['blockhash'];
  priorityFee: PriorityFee;
}): Promise<SignedSplPayout> {
  const { hotWallet, destination, lamports, blockhash, priorityFee } = request;
  // A zero transfer succeeds on chain and pays nothing but fees: always a bug upstream.
  if (lamports <= 0n) throw new RangeError(`a payout amount must be positive, got ${lamports}`);
  return signPayout(hotWallet, blockhash, [...computeBudget(priorityFee), getTransferSolInstruction({ source: hotWallet, destination, amount: lamports })]);
}
