import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  address,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type V0CompiledTransactionMessage,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintEncoder,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import { FailedTransactionMetadata, LiteSVM, type InnerInstruction } from 'litesvm';
import { Catalog } from '../../../src/domain/catalog.js';
import { payoutChain } from './payout-chain.js';

const catalog = Catalog.load();
/** The catalog's mainnet mints: litesvm holds mint accounts at these very addresses. */
export const USDC_MINT = address(catalog.pair('USDC', 'solana')!.token_contract!);
export const USDT_MINT = address(catalog.pair('USDT', 'solana')!.token_contract!);
const DECIMALS = 6;

/** A transaction litesvm executed (or refused in its programs), as a node keeps it once finalized. */
interface Landed {
  signature: string;
  slot: number;
  err: string | null;
  accountKeys: Address[];
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  recentBlockhash: string;
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  inner: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[] }[];
}

const base58 = getBase58Decoder();

/**
 * litesvm (the real System, SPL Token and Associated Token programs) with USDC and USDT mints at their mainnet
 * addresses and a funded payer, and a JSON-RPC server answering the two methods the Solana watcher calls
 * (getSignaturesForAddress, getTransaction in the `json` encoding) from the transactions litesvm executed: their
 * real compiled messages and inner instructions. Every transaction is in its own slot and at once "finalized".
 * Payouts go through `chain` (payout-chain.ts): block heights, a pool and statuses the test drives.
 */
export async function solanaRpcWorld() {
  const svm = new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(100_000_000_000n));
  const landed: Landed[] = [];
  // What a payout driver calls (block heights, the pool, statuses): test/support/solana/payout-chain.ts.
  const chain = payoutChain(svm);

  for (const mint of [USDC_MINT, USDT_MINT]) {
    svm.setAccount({
      address: mint,
      data: new Uint8Array(getMintEncoder().encode({ mintAuthority: payer.address, supply: 0n, decimals: DECIMALS, isInitialized: true, freezeAuthority: null })),
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(getMintSize()))),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      space: BigInt(getMintSize()),
    });
  }

  const tokenAccountOf = async (owner: Address, mint: Address) => (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];

  /** Signs and executes; the transaction is kept, failed or not, as a node keeps a failed one that paid its fee. */
  async function send(instructions: Instruction[], signer: KeyPairSigner = payer): Promise<{ signature: string; failed: boolean }> {
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(signer, message),
      (message) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
      (message) => appendTransactionMessageInstructions(instructions, message),
      (message) => signTransactionMessageWithSigners(message),
    );
    const result = svm.sendTransaction(transaction);
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    // Built as version 0 above.
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes) as V0CompiledTransactionMessage & { lifetimeToken: string };
    const signature = getSignatureFromTransaction(transaction);
    const compiled = (ix: { programIdIndex: () => number; accounts: () => Uint8Array; data: () => Uint8Array }) => ({
      programIdIndex: ix.programIdIndex(),
      accounts: [...ix.accounts()],
      data: base58.decode(ix.data()),
    });
    landed.push({
      signature,
      slot: landed.length + 1,
      err: failed ? result.toString() : null,
      accountKeys: message.staticAccounts,
      header: {
        numRequiredSignatures: message.header.numSignerAccounts,
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: message.lifetimeToken,
      instructions: message.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: ix.accountIndices ?? [],
        data: base58.decode(ix.data ?? new Uint8Array()),
      })),
      inner: meta
        .innerInstructions()
        .map((set: InnerInstruction[], index: number) => ({ index, instructions: set.map((ix) => ({ ...compiled(ix.instruction()), stackHeight: ix.stackHeight() })) }))
        .filter((set) => set.instructions.length > 0),
    });
    svm.expireBlockhash();
    return { signature, failed };
  }

  await send(
    (
      await Promise.all(
        [USDC_MINT, USDT_MINT].map(async (mint) => [
          getCreateAssociatedTokenIdempotentInstruction({ payer, ata: await tokenAccountOf(payer.address, mint), owner: payer.address, mint }),
          getMintToCheckedInstruction({ mint, token: await tokenAccountOf(payer.address, mint), mintAuthority: payer, amount: 1_000_000_000_000n, decimals: DECIMALS }),
        ]),
      )
    ).flat(),
  );

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      const payoutAnswer = chain.answer(request.method, request.params ?? []);
      if (payoutAnswer === 'lost') return void res.destroy();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...(payoutAnswer ?? { result: answer(request.method, request.params) }) }));
    });
  });
  function answer(method: string, params: unknown[]): unknown {
    if (method === 'getSignaturesForAddress') {
      const [account, options = {}] = params as [string, { until?: string; before?: string; limit?: number }];
      const newestFirst = landed.filter((tx) => tx.accountKeys.includes(account as Address)).reverse();
      const start = options.before ? newestFirst.findIndex((tx) => tx.signature === options.before) + 1 : 0;
      const end = options.until ? newestFirst.findIndex((tx) => tx.signature === options.until) : -1;
      return newestFirst
        .slice(start, end === -1 ? undefined : end)
        .slice(0, options.limit ?? 1000)
        .map((tx) => ({ signature: tx.signature, slot: tx.slot, err: tx.err && { InstructionError: tx.err }, memo: null, blockTime: null, confirmationStatus: 'finalized' }));
    }
    if (method === 'getTransaction') {
      const tx = landed.find((t) => t.signature === params[0]);
      if (!tx) return null;
      return {
        slot: tx.slot,
        blockTime: null,
        version: 0,
        meta: {
          err: tx.err && { InstructionError: tx.err },
          status: tx.err ? { Err: tx.err } : { Ok: null },
          fee: 5000,
          innerInstructions: tx.inner,
          loadedAddresses: { writable: [], readonly: [] },
          logMessages: [],
          preBalances: [],
          postBalances: [],
          preTokenBalances: [],
          postTokenBalances: [],
          rewards: [],
        },
        transaction: {
          signatures: [tx.signature],
          message: { accountKeys: tx.accountKeys, header: tx.header, recentBlockhash: tx.recentBlockhash, instructions: tx.instructions, addressTableLookups: [] },
        },
      };
    }
    throw new Error(`the test RPC server does not serve ${method}`);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    svm,
    payer,
    chain,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokenAccountOf,
    send,
    /** What a wallet sends to pay `owner` in a token: its associated token account created if need be, then TransferChecked. */
    async payToken(owner: string, mint: Address, amount: bigint) {
      const ata = await tokenAccountOf(address(owner), mint);
      return send([
        getCreateAssociatedTokenIdempotentInstruction({ payer, ata, owner: address(owner), mint }),
        getTransferCheckedInstruction({ source: await tokenAccountOf(payer.address, mint), mint, destination: ata, authority: payer, amount, decimals: DECIMALS }),
      ]);
    },
    paySol: (owner: string, amount: bigint) => send([getTransferSolInstruction({ source: payer, destination: address(owner), amount })]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
