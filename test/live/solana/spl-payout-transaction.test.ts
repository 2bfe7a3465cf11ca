import {
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isOffCurveAddress,
  type Address,
} from '@solana/kit';
import { TOKEN_ERROR__INSUFFICIENT_FUNDS, TOKEN_ERROR__MINT_DECIMALS_MISMATCH, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_ACCOUNT_RENT_LAMPORTS, splPayoutMaxCostLamports } from '../../../src/providers/chains/solana/spl-payout-fee.js';
import { signSplPayout, type SplPayoutRequest } from '../../../src/providers/chains/solana/spl-payout-transaction.js';
import { DECIMALS, tokenWorld } from '../../support/solana/token-world.js';

// litesvm's TransactionErrorFieldless is a const enum it does not export; these are its values.
const ALREADY_PROCESSED = 6;
const BLOCKHASH_NOT_FOUND = 7;

/** 49.36 lamports of priority fee: charged as 50, so every landed payout below also checks the rounding. */
const PRIORITY_FEE = { microLamportsPerComputeUnit: 1_234n, computeUnitLimit: 40_000 };
const HOT_TOKENS = 100_000_000n;

/** The custom error code of the failed instruction, and that instruction's index; null when the failure is not one. */
function instructionFailure(result: TransactionMetadata | FailedTransactionMetadata) {
  if (!(result instanceof FailedTransactionMetadata)) return null;
  const error = result.err();
  if (typeof error !== 'object' || !('err' in error)) return null;
  const cause = error.err();
  return { index: error.index, code: typeof cause === 'object' && 'code' in cause ? cause.code : null };
}

describe('an SPL token payout transaction, executed by the real token programs (litesvm)', () => {
  let world: Awaited<ReturnType<typeof tokenWorld>>;
  beforeAll(async () => {
    world = await tokenWorld(HOT_TOKENS);
  });

  const newOwner = async (): Promise<Address> => (await generateKeyPairSigner()).address;
  const payout = (overrides: Partial<SplPayoutRequest> & { destinationOwner: Address }) =>
    signSplPayout({
      hotWallet: world.hotWallet,
      mint: world.mint,
      decimals: DECIMALS,
      amount: 1_500_000n,
      createDestinationAccount: false,
      blockhash: world.recentBlockhash(),
      priorityFee: PRIORITY_FEE,
      ...overrides,
    });
  const hotTokens = async () => (await world.tokenAccount(world.hotWallet.address))!.amount;

  it('pays the amount into an existing token account, and the hot wallet pays exactly the capped fee', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);
    const [tokensBefore, lamportsBefore] = [await hotTokens(), world.lamportsOf(world.hotWallet.address)];

    const signed = await payout({ destinationOwner: owner, amount: 12_345_678n });
    const result = world.sendWire(signed.wireTransaction);

    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    expect((await world.tokenAccount(owner))!.amount).toBe(12_345_678n);
    expect(await hotTokens()).toBe(tokensBefore - 12_345_678n);
    expect(lamportsBefore - world.lamportsOf(world.hotWallet.address)).toBe(splPayoutMaxCostLamports(PRIORITY_FEE, false));
  });

  it('returns as signature the id the chain executed the wire bytes under, and the blockhash expiry given', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);
    const blockhash = world.recentBlockhash();
    const signed = await payout({ destinationOwner: owner, blockhash });
    const result = world.sendWire(signed.wireTransaction) as TransactionMetadata;

    expect(getBase58Decoder().decode(result.signature())).toBe(signed.signature);
    expect(signed.lastValidBlockHeight).toBe(blockhash.lastValidBlockHeight);
  });

  it('is signed by the hot wallet alone, which pays the fee', async () => {
    const signed = await payout({ destinationOwner: await newOwner(), createDestinationAccount: true });
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(signed.wireTransaction));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);

    expect(message.header.numSignerAccounts).toBe(1);
    expect(message.staticAccounts[0]).toBe(world.hotWallet.address); // the first signer pays the fee
    expect(Object.keys(transaction.signatures)).toEqual([world.hotWallet.address]);
  });

  it("creates the destination's token account when asked: owned by the destination, rent paid by the hot wallet", async () => {
    const owner = await newOwner();
    expect(await world.tokenAccount(owner)).toBeNull();
    const lamportsBefore = world.lamportsOf(world.hotWallet.address);

    const result = world.sendWire((await payout({ destinationOwner: owner, createDestinationAccount: true })).wireTransaction);

    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    const created = (await world.tokenAccount(owner))!;
    expect(created).toMatchObject({ owner, mint: world.mint, amount: 1_500_000n, programOwner: TOKEN_PROGRAM_ADDRESS });
    expect(created.lamports).toBe(TOKEN_ACCOUNT_RENT_LAMPORTS);
    expect(lamportsBefore - world.lamportsOf(world.hotWallet.address)).toBe(splPayoutMaxCostLamports(PRIORITY_FEE, true));
  });

  it('asked to create an account that exists, pays without charging rent (the creation is idempotent)', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);
    const lamportsBefore = world.lamportsOf(world.hotWallet.address);

    const result = world.sendWire((await payout({ destinationOwner: owner, createDestinationAccount: true })).wireTransaction);

    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    expect((await world.tokenAccount(owner))!.amount).toBe(1_500_000n);
    expect(lamportsBefore - world.lamportsOf(world.hotWallet.address)).toBe(splPayoutMaxCostLamports(PRIORITY_FEE, false));
  });

  it('pays an off-curve owner (a program-derived vault) by creating its token account', async () => {
    const vault = await world.tokenAccountOf(await newOwner()); // any program-derived address is off the curve
    expect(isOffCurveAddress(vault)).toBe(true);

    const result = world.sendWire((await payout({ destinationOwner: vault, createDestinationAccount: true })).wireTransaction);

    expect(result).not.toBeInstanceOf(FailedTransactionMetadata);
    expect(await world.tokenAccount(vault)).toMatchObject({ owner: vault, amount: 1_500_000n });
  });

  it('creates no account unless asked: to an owner without one, the payout fails and moves nothing', async () => {
    const owner = await newOwner();
    const tokensBefore = await hotTokens();

    const result = world.sendWire((await payout({ destinationOwner: owner })).wireTransaction);

    expect(result).toBeInstanceOf(FailedTransactionMetadata);
    expect(await world.tokenAccount(owner)).toBeNull();
    expect(await hotTokens()).toBe(tokensBefore);
  });

  it("a payout above the hot wallet's tokens fails in the token program, moves nothing, and its result is well formed", async () => {
    const owner = await newOwner();
    const [tokensBefore, lamportsBefore] = [await hotTokens(), world.lamportsOf(world.hotWallet.address)];
    const signed = await payout({ destinationOwner: owner, amount: tokensBefore + 1n, createDestinationAccount: true });

    const result = world.sendWire(signed.wireTransaction);

    // Instruction 3 is transferChecked, after the two compute-budget instructions and the account creation.
    expect(instructionFailure(result)).toEqual({ index: 3, code: TOKEN_ERROR__INSUFFICIENT_FUNDS });
    expect(getBase58Decoder().decode((result as FailedTransactionMetadata).meta().signature())).toBe(signed.signature);
    expect(await hotTokens()).toBe(tokensBefore);
    // The account creation is undone with the transfer, and its rent; the fees are charged all the same.
    expect(await world.tokenAccount(owner)).toBeNull();
    expect(lamportsBefore - world.lamportsOf(world.hotWallet.address)).toBe(splPayoutMaxCostLamports(PRIORITY_FEE, false));
  });

  it('wrong decimals are refused by the token program (transferChecked)', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);

    const result = world.sendWire((await payout({ destinationOwner: owner, decimals: DECIMALS - 1 })).wireTransaction);

    expect(instructionFailure(result)).toEqual({ index: 2, code: TOKEN_ERROR__MINT_DECIMALS_MISMATCH });
    expect((await world.tokenAccount(owner))!.amount).toBe(0n);
  });

  it('the same signed payout sent twice pays once', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);
    const signed = await payout({ destinationOwner: owner });

    world.sendWire(signed.wireTransaction);
    const again = world.sendWire(signed.wireTransaction);

    expect(again).toBeInstanceOf(FailedTransactionMetadata);
    expect((again as FailedTransactionMetadata).err()).toBe(ALREADY_PROCESSED);
    expect((await world.tokenAccount(owner))!.amount).toBe(1_500_000n);
  });

  it('a payout whose blockhash has expired is refused before execution: nothing moves, no fee is charged', async () => {
    const owner = await newOwner();
    await world.openTokenAccount(owner);
    const signed = await payout({ destinationOwner: owner });
    const [tokensBefore, lamportsBefore] = [await hotTokens(), world.lamportsOf(world.hotWallet.address)];

    world.svm.expireBlockhash();
    const result = world.sendWire(signed.wireTransaction);

    expect(result).toBeInstanceOf(FailedTransactionMetadata);
    expect((result as FailedTransactionMetadata).err()).toBe(BLOCKHASH_NOT_FOUND);
    expect(await hotTokens()).toBe(tokensBefore);
    expect((await world.tokenAccount(owner))!.amount).toBe(0n);
    expect(world.lamportsOf(world.hotWallet.address)).toBe(lamportsBefore);
  });

  it('refuses a zero amount before signing', async () => {
    await expect(payout({ destinationOwner: await newOwner(), amount: 0n })).rejects.toThrow(RangeError);
  });
});
