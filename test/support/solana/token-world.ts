import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64Encoder,
  getTransactionDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTokenDecoder,
} from '@solana-program/token';
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';

/** USDC and USDT on Solana have 6 decimals. */
export const DECIMALS = 6;

/** Whether litesvm refused a transaction (for scripts outside test/, which cannot import litesvm themselves). */
export const refused = (result: TransactionMetadata | FailedTransactionMetadata): result is FailedTransactionMetadata => result instanceof FailedTransactionMetadata;

/**
 * A Solana runtime in process (litesvm: the real System, SPL Token and Associated Token programs) with a token
 * mint and a hot wallet holding SOL and `hotTokens` of the token. Balances are read from the runtime's accounts.
 */
export async function tokenWorld(hotTokens: bigint) {
  const svm = new LiteSVM();
  const [hotWallet, mintAccount] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  const mint = mintAccount.address;
  svm.airdrop(hotWallet.address, lamports(10_000_000_000n));

  const tokenAccountOf = async (owner: Address) =>
    (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

  /** Set-up transactions, paid and signed by the hot wallet; a failure is a broken test, so it throws. */
  async function setUp(instructions: Instruction[]): Promise<void> {
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(hotWallet, message),
      (message) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
      (message) => appendTransactionMessageInstructions(instructions, message),
      (message) => signTransactionMessageWithSigners(message),
    );
    const result = svm.sendTransaction(transaction);
    if (result instanceof FailedTransactionMetadata) throw new Error(`set-up failed: ${result.toString()}`);
  }

  /** Opens the owner's associated token account for the mint, as a wallet does before being paid. */
  const openTokenAccount = async (owner: Address) =>
    setUp([getCreateAssociatedTokenIdempotentInstruction({ payer: hotWallet, ata: await tokenAccountOf(owner), owner, mint })]);

  const space = BigInt(getMintSize());
  await setUp([
    getCreateAccountInstruction({
      payer: hotWallet,
      newAccount: mintAccount,
      lamports: svm.minimumBalanceForRentExemption(space),
      space,
      programAddress: TOKEN_PROGRAM_ADDRESS,
    }),
    getInitializeMint2Instruction({ mint, decimals: DECIMALS, mintAuthority: hotWallet.address }),
  ]);
  await openTokenAccount(hotWallet.address);
  await setUp([
    getMintToCheckedInstruction({ mint, token: await tokenAccountOf(hotWallet.address), mintAuthority: hotWallet, amount: hotTokens, decimals: DECIMALS }),
  ]);

  return {
    svm,
    hotWallet,
    mint,
    tokenAccountOf,
    openTokenAccount,
    /** The owner's token account as the token program stored it; null when it does not exist. */
    async tokenAccount(owner: Address) {
      const account = svm.getAccount(await tokenAccountOf(owner));
      return account.exists ? { ...getTokenDecoder().decode(account.data), programOwner: account.programAddress, lamports: account.lamports } : null;
    },
    lamportsOf: (address: Address): bigint => svm.getBalance(address) ?? 0n,
    /** litesvm keeps no block heights: the height is carried through the builder, and expiry is `svm.expireBlockhash()`. */
    recentBlockhash: () => ({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: 150n }),
    /** Executes wire bytes exactly as a builder returned them, as an RPC node's sendTransaction would receive them. */
    sendWire(wireTransaction: string): TransactionMetadata | FailedTransactionMetadata {
      return svm.sendTransaction(getTransactionDecoder().decode(getBase64Encoder().encode(wireTransaction)));
    },
  };
}
