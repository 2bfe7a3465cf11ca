/**
 * Measures two ways to sweep a USDC-like token from N deposit addresses into one hot wallet, on a local anvil
 * chain (docs/treasury.md, "EVM: keyed sweeps or CREATE2 forwarders (measured)"):
 *
 *   keyed       deposit addresses are HD-derived EOAs; the hot wallet tops each up with exactly the ETH its token
 *               transfer needs (estimateGas × gas price), then the deposit key sends its whole balance.
 *   forwarders  deposit addresses are CREATE2 EIP-1167 clones of one SweepForwarder, known before deployment; one
 *               ForwarderFactory.sweep call per batch deploys the missing clones and flushes them to the hot wallet.
 *
 * Each mechanic runs on a fresh anvil, two rounds of deposits each (round 2: same addresses, deposited again).
 * All transactions are legacy ones at a fixed gas price, so gas and fee are reproducible.
 *
 *   npx tsx bench/sweep-mechanics.ts [--addresses 100]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import {
  concat,
  encodeFunctionData,
  formatEther,
  getContractAddress,
  pad,
  parseGwei,
  parseUnits,
  toHex,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FUNDER, startAnvil, type Anvil } from '../test/support/evm/anvil.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const EVM = path.join(here, '..', 'test', 'support', 'evm');
const TOKEN = JSON.parse(fs.readFileSync(path.join(EVM, 'test-usdc.json'), 'utf8')) as { abi: Abi };
const FORWARDERS = JSON.parse(fs.readFileSync(path.join(EVM, 'sweep-forwarders.json'), 'utf8')) as {
  ForwarderFactory: { abi: Abi; bytecode: Hex };
};

const MNEMONIC = 'test test test test test test test test test test test junk';
/** Anvil's initial base fee; the base fee only falls from there on these nearly empty blocks. */
const GAS_PRICE = parseGwei('1');
/** The price the docs quote fees at. */
const QUOTE_PRICE = parseGwei('20');

const argIndex = process.argv.indexOf('--addresses');
const N = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 100;
/** Deposit i holds 10 + i USDC in round 1 and 5 + i in round 2. */
const deposit = (round: number, i: number) => parseUnits(String((round === 1 ? 10 : 5) + i), 6);

interface Row {
  mechanic: string;
  txs: number;
  gas: bigint;
  /** ETH left on the deposit addresses after the round. */
  dust: bigint;
  note: string;
}

const HOT: Address = FUNDER.address;

/**
 * Waits for a transaction by asking for its receipt directly: anvil mines each transaction as it arrives. With
 * viem's waitForTransactionReceipt (which watches block numbers) 2 runs in 12 hung on one transaction while the
 * node's pool was empty; polling the receipt has not hung since.
 * `priced` checks that it paid GAS_PRICE (the deposits, minted at anvil's own price, don't).
 */
async function mined(anvil: Anvil, hash: Hex, priced = true): Promise<TransactionReceipt> {
  const deadline = Date.now() + 20_000;
  let receipt: TransactionReceipt | undefined;
  while (receipt === undefined) {
    receipt = await anvil.client.getTransactionReceipt({ hash }).catch(() => undefined);
    if (receipt !== undefined) break;
    if (Date.now() > deadline) {
      const known = await anvil.client.getTransaction({ hash }).catch(() => undefined);
      throw new Error(`transaction ${hash} not mined after 20 s (${known ? 'known to the node' : 'unknown to the node'})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  if (priced && receipt.effectiveGasPrice !== GAS_PRICE) throw new Error(`transaction ${hash} paid ${receipt.effectiveGasPrice}`);
  return receipt;
}

const balanceOf = (anvil: Anvil, token: Address, who: Address) =>
  anvil.client.readContract({ address: token, abi: TOKEN.abi, functionName: 'balanceOf', args: [who] }) as Promise<bigint>;

/** A token with the hot wallet already holding a float, so no sweep pays for the hot wallet's first token slot. */
async function setUp(anvil: Anvil): Promise<Address> {
  const token = await anvil.deployToken();
  await anvil.sendToken(token, HOT, '1');
  return token;
}

async function depositAll(anvil: Anvil, token: Address, addresses: Address[], round: number) {
  for (const [i, address] of addresses.entries()) {
    const hash = await anvil.client.writeContract({
      address: token,
      abi: TOKEN.abi,
      functionName: 'mint',
      args: [address, deposit(round, i)],
      chain: null,
    });
    await mined(anvil, hash, false);
  }
}

async function keyed(): Promise<Row[]> {
  const anvil = await startAnvil();
  try {
    const token = await setUp(anvil);
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
    const accounts = Array.from({ length: N }, (_, i) => privateKeyToAccount(toHex(root.derive(`m/44'/60'/1'/0/${i}`).privateKey!)));
    const rows: Row[] = [];
    for (const round of [1, 2]) {
      await depositAll(anvil, token, accounts.map((a) => a.address), round);
      const hotBefore = await balanceOf(anvil, token, HOT);
      let txs = 0;
      let gas = 0n;
      let estimated = 0n;
      let sweepGas = 0n;
      let topUpSkipped = 0;
      for (const account of accounts) {
        const amount = await balanceOf(anvil, token, account.address);
        const data = encodeFunctionData({ abi: TOKEN.abi, functionName: 'transfer', args: [HOT, amount] });
        const limit = await anvil.client.estimateGas({ account: account.address, to: token, data });
        const held = await anvil.client.getBalance({ address: account.address });
        const need = limit * GAS_PRICE - held;
        if (need > 0n) {
          const topUp = await mined(
            anvil,
            await anvil.client.sendTransaction({ to: account.address, value: need, gas: 21_000n, gasPrice: GAS_PRICE, type: 'legacy', chain: null }),
          );
          txs += 1;
          gas += topUp.gasUsed;
        } else {
          topUpSkipped += 1;
        }
        const sweep = await mined(
          anvil,
          await anvil.client.sendTransaction({ account, to: token, data, gas: limit, gasPrice: GAS_PRICE, type: 'legacy', chain: null }),
        );
        txs += 1;
        gas += sweep.gasUsed;
        sweepGas += sweep.gasUsed;
        estimated += limit;
      }
      let dust = 0n;
      for (const account of accounts) {
        dust += await anvil.client.getBalance({ address: account.address });
        if ((await balanceOf(anvil, token, account.address)) !== 0n) throw new Error(`${account.address} still holds tokens`);
      }
      const moved = (await balanceOf(anvil, token, HOT)) - hotBefore;
      const expected = accounts.reduce((sum, _, i) => sum + deposit(round, i), 0n);
      if (moved !== expected) throw new Error(`keyed round ${round} moved ${moved}, expected ${expected}`);
      rows.push({
        mechanic: `keyed, round ${round}`,
        txs,
        gas,
        dust,
        note: `transfer gas estimated ${estimated / BigInt(N)}, used ${sweepGas / BigInt(N)} per address; ${topUpSkipped} top-ups skipped`,
      });
    }
    return rows;
  } finally {
    await anvil.close();
  }
}

/** The EIP-1167 creation code of a clone of `implementation`, for computing its CREATE2 address off-chain. */
function cloneInitCode(implementation: Address): Hex {
  return concat(['0x3d602d80600a3d3981f3363d3d373d3d3d363d73', implementation, '0x5af43d82803e903d91602b57fd5bf3']);
}

async function forwarders(batch: number): Promise<{ deployGas: bigint; rows: Row[] }> {
  const anvil = await startAnvil();
  try {
    const token = await setUp(anvil);
    const { abi, bytecode } = FORWARDERS.ForwarderFactory;
    const deployed = await mined(
      anvil,
      await anvil.client.deployContract({ abi, bytecode, args: [HOT], gasPrice: GAS_PRICE, type: 'legacy', chain: null }),
    );
    const factory = deployed.contractAddress!;
    const implementation = (await anvil.client.readContract({ address: factory, abi, functionName: 'implementation' })) as Address;
    const salts = Array.from({ length: N }, (_, i) => pad(toHex(i), { size: 32 }));
    // Deposit addresses are computed before any forwarder exists, and checked against the factory's own answer.
    const addresses = salts.map((salt) => getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: cloneInitCode(implementation) }));
    for (const [i, salt] of salts.entries()) {
      const onChain = (await anvil.client.readContract({ address: factory, abi, functionName: 'forwarderOf', args: [salt] })) as Address;
      if (onChain !== addresses[i]) throw new Error(`forwarderOf(${salt}) is ${onChain}, computed ${addresses[i]}`);
      if ((await anvil.client.getCode({ address: addresses[i]! })) !== undefined) throw new Error(`${addresses[i]} already has code`);
    }
    const rows: Row[] = [];
    for (const round of [1, 2]) {
      await depositAll(anvil, token, addresses, round);
      const hotBefore = await balanceOf(anvil, token, HOT);
      let txs = 0;
      let gas = 0n;
      for (let start = 0; start < N; start += batch) {
        const receipt = await mined(
          anvil,
          await anvil.client.writeContract({
            address: factory,
            abi,
            functionName: 'sweep',
            args: [token, salts.slice(start, start + batch)],
            gasPrice: GAS_PRICE,
            type: 'legacy',
            chain: null,
          }),
        );
        txs += 1;
        gas += receipt.gasUsed;
      }
      let dust = 0n;
      for (const address of addresses) {
        dust += await anvil.client.getBalance({ address });
        if ((await balanceOf(anvil, token, address)) !== 0n) throw new Error(`${address} still holds tokens`);
      }
      const moved = (await balanceOf(anvil, token, HOT)) - hotBefore;
      const expected = addresses.reduce((sum, _, i) => sum + deposit(round, i), 0n);
      if (moved !== expected) throw new Error(`forwarders round ${round} moved ${moved}, expected ${expected}`);
      rows.push({
        mechanic: `forwarders ×${batch}, round ${round}`,
        txs,
        gas,
        dust,
        note: round === 1 ? 'deploys the clones and flushes' : 'flush only (clones deployed)',
      });
    }
    return { deployGas: deployed.gasUsed, rows };
  } finally {
    await anvil.close();
  }
}

const eth = (wei: bigint) => formatEther(wei).replace(/^(\d+\.\d{0,6}).*$/, '$1');

const started = new Date();
const rows: Row[] = [...(await keyed())];
let deployGas = 0n;
for (const batch of [25, 100]) {
  const result = await forwarders(batch);
  deployGas = result.deployGas;
  rows.push(...result.rows);
}

console.log(`sweep mechanics, ${N} deposit addresses, anvil, gas price ${formatEther(GAS_PRICE * 10n ** 9n)} gwei, ${started.toISOString()}`);
console.log(`one-time ForwarderFactory deployment (creates the SweepForwarder implementation): ${deployGas} gas`);
console.log('');
const header = ['mechanic', 'txs', 'gas', 'gas/address', 'fee @1 gwei ETH', 'fee @20 gwei ETH', 'ETH dust left (wei)', 'note'];
const table = rows.map((r) => [
  r.mechanic,
  String(r.txs),
  String(r.gas),
  String(r.gas / BigInt(N)),
  eth(r.gas * GAS_PRICE),
  eth(r.gas * QUOTE_PRICE),
  String(r.dust),
  r.note,
]);
const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c]!.length)));
for (const row of [header, widths.map((w) => '-'.repeat(w)), ...table]) {
  console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`);
}
