import { SYSTEM_PROGRAM_ADDRESS, SystemInstruction, getTransferSolInstructionDataDecoder, identifySystemInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
  getTransferCheckedInstructionDataDecoder,
  getTransferInstructionDataDecoder,
  identifyTokenInstruction,
} from '@solana-program/token';
import type { SolanaInstruction } from './solana-rpc.js';

/** Value that one instruction moved: lamports to an account, or token base units to a token account. */
export interface SolanaTransfer {
  /** The instruction's position in the transaction's execution order: with the signature, the transfer's identity. */
  instructionIndex: number;
  /** null: lamports (a System transfer); else the mint when the instruction names it (TransferChecked), or undefined. */
  mint: string | null | undefined;
  destination: string;
  /** Who sent it: the token authority (the payer's wallet) or the lamports' source. */
  from: string;
  amount: bigint;
}

/** The instruction's kind by its data, or null for data the program's decoder does not recognise. */
function identified<T>(identify: (data: Uint8Array) => T, data: Uint8Array): T | null {
  try {
    return identify(data);
  } catch {
    return null;
  }
}

/**
 * The SPL Token Transfer/TransferChecked and System TransferSol instructions among `instructions`, top-level or
 * inner (a payment routed through another program arrives as an inner one). Only the classic token program:
 * the catalog's mints (USDC, USDT) are classic SPL tokens.
 */
export function transfersIn(instructions: readonly SolanaInstruction[]): SolanaTransfer[] {
  const transfers: SolanaTransfer[] = [];
  instructions.forEach(({ programId, accounts, data }, instructionIndex) => {
    if (programId === TOKEN_PROGRAM_ADDRESS) {
      const kind = identified(identifyTokenInstruction, data);
      if (kind === TokenInstruction.Transfer && accounts.length >= 3) {
        const { amount } = getTransferInstructionDataDecoder().decode(data);
        transfers.push({ instructionIndex, mint: undefined, destination: accounts[1]!, from: accounts[2]!, amount });
      } else if (kind === TokenInstruction.TransferChecked && accounts.length >= 4) {
        const { amount } = getTransferCheckedInstructionDataDecoder().decode(data);
        transfers.push({ instructionIndex, mint: accounts[1]!, destination: accounts[2]!, from: accounts[3]!, amount });
      }
    } else if (programId === SYSTEM_PROGRAM_ADDRESS && accounts.length >= 2) {
      if (identified(identifySystemInstruction, data) === SystemInstruction.TransferSol) {
        const { amount } = getTransferSolInstructionDataDecoder().decode(data);
        transfers.push({ instructionIndex, mint: null, destination: accounts[1]!, from: accounts[0]!, amount });
      }
    }
  });
  return transfers;
}
