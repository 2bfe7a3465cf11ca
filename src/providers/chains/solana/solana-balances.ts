import { findAssociatedTokenPda, getTokenDecoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { address, createSolanaRpc, type Address } from '@solana/kit';
import type { BalanceReader } from '../balance-reader.js';
import { hidingUrl } from './solana-rpc.js';

/** The most accounts one getMultipleAccounts request may name. */
const ACCOUNTS_PER_REQUEST = 100;

/**
 * Balances on Solana at `finalized` (what the watcher credits at), through getMultipleAccounts, 100 accounts a
 * request: SOL is the owner account's lamports; a token is the amount in the owner's associated token account of
 * the mint, where the watcher looks for deposits (none yet: 0). Failures name the method, never the endpoint.
 */
export function solanaBalanceReader(url: string, timeoutMs: number): BalanceReader {
  const rpc = createSolanaRpc(url);
  const hiding = hidingUrl(url, timeoutMs);
  const tokens = getTokenDecoder();
  async function accounts(addresses: Address[]) {
    const found = [];
    for (let i = 0; i < addresses.length; i += ACCOUNTS_PER_REQUEST) {
      const page = addresses.slice(i, i + ACCOUNTS_PER_REQUEST);
      const { value } = await hiding('getMultipleAccounts', (abortSignal) => rpc.getMultipleAccounts(page, { encoding: 'base64', commitment: 'finalized' }).send({ abortSignal }));
      found.push(...value);
    }
    return found;
  }
  return {
    async balances(mint, holders) {
      const owners = holders.map((holder) => address(holder));
      if (mint === null) return (await accounts(owners)).map((account) => account?.lamports ?? 0n);
      const tokenAccounts = await Promise.all(owners.map(async (owner) => (await findAssociatedTokenPda({ owner, mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]));
      return (await accounts(tokenAccounts)).map((account) => (account ? tokens.decode(Buffer.from(account.data[0], 'base64')).amount : 0n));
    },
  };
}
