/**
 * What sweeping an SPL token (USDC-like, 6 decimals) from Solana deposit addresses into the hot wallet costs, on
 * litesvm with the real System, SPL Token and Associated Token programs (docs/treasury.md, "Solana: one transaction
 * per owner, the rent back"). Each deposit owner's associated token account holds a balance; the sweep is one
 * transaction whose fee the hot wallet pays: `transferChecked` of the whole balance to the hot wallet's token account,
 * then `closeAccount`, which sends the account's rent to the hot wallet. The owner key signs; its own system account
 * never holds SOL. Tried with 1 owner a transaction and with as many as fit in one (1,232 bytes).
 *
 *   npx tsx bench/solana-sweep-costs.ts [--addresses 200]
 */
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCloseAccountInstruction, getMintToCheckedInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { refused, tokenWorld } from '../test/support/solana/token-world.js';

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const addresses = argument('addresses', 200);
const DECIMALS = 6;
const AMOUNT = 25_000_000n;
/** Solana's limit on a transaction's wire size. */
const MAX_TRANSACTION_BYTES = 1_232;

const world = await tokenWorld(10n ** 15n);
const { svm, hotWallet, mint, tokenAccountOf } = world;
const hotTokenAccount = await tokenAccountOf(hotWallet.address);

/** `count` deposit owners whose token accounts hold AMOUNT each (opened and minted by the hot wallet, as a payer would). */
async function depositOwners(count: number): Promise<KeyPairSigner[]> {
  const owners = await Promise.all(Array.from({ length: count }, () => generateKeyPairSigner()));
  for (const owner of owners) {
    await world.openTokenAccount(owner.address);
    await send([getMintToCheckedInstruction({ mint, token: await tokenAccountOf(owner.address), mintAuthority: hotWallet, amount: AMOUNT, decimals: DECIMALS })]);
  }
  return owners;
}

async function sweepInstructions(owner: KeyPairSigner): Promise<Instruction[]> {
  const source = await tokenAccountOf(owner.address);
  return [
    getTransferCheckedInstruction({ source, mint, destination: hotTokenAccount, authority: owner, amount: AMOUNT, decimals: DECIMALS }),
    getCloseAccountInstruction({ account: source, destination: hotWallet.address, owner }),
  ];
}

async function wire(instructions: Instruction[]) {
  return pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(hotWallet, message),
    (message) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
    (message) => appendTransactionMessageInstructions(instructions, message),
    (message) => signTransactionMessageWithSigners(message),
  );
}

async function send(instructions: Instruction[]): Promise<number> {
  const transaction = await wire(instructions);
  const result = svm.sendTransaction(transaction);
  if (refused(result)) throw new Error(`transaction failed: ${result.toString()}`);
  svm.expireBlockhash();
  return Buffer.from(getBase64EncodedWireTransaction(transaction), 'base64').length;
}

/** The most owners one transaction can sweep within the size limit. */
async function ownersPerTransaction(): Promise<number> {
  const probe = await Promise.all(Array.from({ length: 12 }, () => generateKeyPairSigner()));
  for (let n = 1; n <= probe.length; n++) {
    const instructions = (await Promise.all(probe.slice(0, n).map(sweepInstructions))).flat();
    const size = await wire(instructions).then((tx) => Buffer.from(getBase64EncodedWireTransaction(tx), 'base64').length).catch(() => Infinity);
    if (size > MAX_TRANSACTION_BYTES) return n - 1;
  }
  return probe.length;
}

async function run(perTransaction: number) {
  const owners = await depositOwners(addresses);
  const lamportsBefore = svm.getBalance(hotWallet.address)!;
  const tokensBefore = (await world.tokenAccount(hotWallet.address))!.amount;
  const started = performance.now();
  let transactions = 0;
  let largest = 0;
  for (let i = 0; i < owners.length; i += perTransaction) {
    const batch = owners.slice(i, i + perTransaction);
    largest = Math.max(largest, await send((await Promise.all(batch.map(sweepInstructions))).flat()));
    transactions++;
  }
  const ms = performance.now() - started;
  const swept = (await world.tokenAccount(hotWallet.address))!.amount - tokensBefore;
  if (swept !== AMOUNT * BigInt(addresses)) throw new Error('the hot wallet did not receive every sweep');
  for (const owner of owners) if ((await world.tokenAccount(owner.address)) !== null) throw new Error('a token account was left open');
  const gained = svm.getBalance(hotWallet.address)! - lamportsBefore;
  return { perTransaction, transactions, largest, ms, lamportsPerAddress: gained / BigInt(addresses) };
}

const fit = await ownersPerTransaction();
console.log(`Solana SPL sweeps on litesvm, ${addresses} addresses (${new Date().toISOString()}); ${fit} owners fit in one transaction`);
console.log('| owners a transaction | transactions | largest (bytes) | hot wallet SOL per address (rent back less fees) | litesvm wall time |');
console.log('|---:|---:|---:|---:|---:|');
for (const perTransaction of [1, fit]) {
  const r = await run(perTransaction);
  console.log(`| ${r.perTransaction} | ${r.transactions} | ${r.largest} | +${r.lamportsPerAddress.toLocaleString('en')} lamports | ${Math.round(r.ms)} ms |`);
}
