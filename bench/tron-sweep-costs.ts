/**
 * What sweeping USDT (TRC-20) from Tron deposit addresses into the hot wallet costs in TRX, two ways, on the fee
 * model of the fake Tron node the tests use (test/support/tron/fake-node.ts: energy burned at 100 sun a unit, 65,000
 * energy for a transfer to a holder of the token, bandwidth burned at 1,000 sun a byte of the signed transaction plus
 * 64; its chain parameters: 0.1 + 1 TRX to activate an address) (docs/treasury.md, "Tron: TRX top-ups or delegated
 * energy"):
 *
 *   top-up     the hot wallet sends each deposit address exactly the TRX its transfer burns (energy and bandwidth),
 *              then the deposit key sends the whole USDT balance to the hot wallet; both run on the fake node.
 *   delegated  an operator's staked account delegates the transfer's energy to the address and takes it back after
 *              (DelegateResource, UnDelegateResource: their signed sizes measured with TronWeb's protobuf, the fake
 *              node does not execute them); the deposit's transfer burns no energy, and its bandwidth comes from the
 *              600 points a day every activated address gets free.
 *
 * Every address must be activated once before it can send (a TRX transfer to it): that first-sweep cost is the same
 * both ways. Transactions are real, signed with the repository's Tron builder; sizes are reproducible.
 *
 *   npx tsx bench/tron-sweep-costs.ts [--addresses 20]
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { tronAddressBytes } from '../src/providers/chains/tron/address.js';
import { localTronSigner, type TronSigner } from '../src/providers/chains/tron/signer.js';
import { buildTransaction, signedTransactionBytes, trc20TransferContract, trxTransferContract, type TronContract } from '../src/providers/chains/tron/transaction.js';
import { BANDWIDTH_FEE_SUN, ENERGY_TO_HOLDER, FakeTronNode } from '../test/support/tron/fake-node.js';
import { HOT_WALLET_KEY, USDT } from '../test/support/tron/live-payouts.js';

const SUN_PER_TRX = 1_000_000n;
/** The fake node's energy price (its getchainparameters' getEnergyFee). */
const ENERGY_FEE_SUN = 100n;
/** getCreateAccountFee + getCreateNewAccountFeeInSystemContract of the fake node: what activating an address burns. */
const ACTIVATION_SUN = 100_000n + 1_000_000n;
/** The bandwidth points an activated address gets free every day (java-tron's freeNetLimit). */
const FREE_BANDWIDTH_POINTS = 600n;
/** A signature's bytes in the signed transaction, and the 64 bytes java-tron adds to what a transaction is charged. */
const CHARGED_EXTRA_BYTES = 64n;

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const addresses = argument('addresses', 20);
const trx = (sun: bigint) => `${sun / SUN_PER_TRX}.${(sun % SUN_PER_TRX).toString().padStart(6, '0')}`;

const account = HDKey.fromMasterSeed(mnemonicToSeedSync('test test test test test test test test test test test junk')).derive("m/44'/195'/0'/0");
const depositKeys: TronSigner[] = Array.from({ length: addresses }, (_, i) => localTronSigner(bytesToHex(account.deriveChild(i).privateKey!)));
const hot = localTronSigner(HOT_WALLET_KEY);
const amount = 10_000_000n;

const node = await FakeTronNode.start();
node.mintToken(USDT, hot.address, 1n);
node.setTrx(hot.address, 10n ** 15n);
for (const key of depositKeys) node.mintToken(USDT, key.address, amount);

function signed(signer: TronSigner, contract: TronContract, feeLimitSun?: number): string {
  const head = node.head;
  const unsigned = buildTransaction({ contract, refBlockId: head.id, timestamp: head.timestamp, expiration: head.timestamp + 60_000, feeLimitSun });
  return bytesToHex(signedTransactionBytes(unsigned, signer.sign(unsigned)));
}

async function broadcast(raw: string): Promise<string> {
  const answer = (await (await fetch(`${node.url}/wallet/broadcasthex`, { method: 'POST', body: JSON.stringify({ transaction: raw }) })).json()) as { result?: boolean; txid: string; code?: string };
  if (answer.result !== true) throw new Error(`broadcast refused: ${answer.code}`);
  return answer.txid;
}

const chargedSun = (raw: string) => (BigInt(raw.length / 2) + CHARGED_EXTRA_BYTES) * BANDWIDTH_FEE_SUN;

// The top-up way, executed: exact top-ups, then the transfers, each address's fees summed from the node's receipts.
const energySun = ENERGY_TO_HOLDER * ENERGY_FEE_SUN;
const topUpFees: bigint[] = [];
const sizes = { topUp: 0, transfer: 0 };
for (const key of depositKeys) {
  const transfer = signed(key, trc20TransferContract({ owner: key.address, token: USDT, to: hot.address, amount }), Number(energySun));
  const topUp = signed(hot, trxTransferContract({ owner: hot.address, to: key.address, amountSun: energySun + chargedSun(transfer) }));
  const ids = [await broadcast(topUp), await broadcast(transfer)];
  node.mine(1);
  const infos = ids.map((id) => node.executed.get(id)!.info);
  if (infos.some((info) => info.result === 'FAILED')) throw new Error('a sweep transaction failed');
  topUpFees.push(infos.reduce((total, info) => total + BigInt(info.fee), 0n));
  sizes.topUp = topUp.length / 2;
  sizes.transfer = transfer.length / 2;
}
if (node.tokenBalance(USDT, hot.address) !== 1n + amount * BigInt(addresses)) throw new Error('the hot wallet did not receive every sweep');

// The delegated way: the staked account's two transactions, each the size of a TRX transfer with its contract
// swapped for a DelegateResourceContract (UnDelegateResourceContract) encoded by TronWeb's protobuf (within a byte:
// a length prefix may grow), not executed here.
const { TronWebProto } = globalThis as unknown as { TronWebProto: Record<string, new () => Record<string, (...args: unknown[]) => unknown>> };
const transferParameter = trxTransferContract({ owner: hot.address, to: depositKeys[0]!.address, amountSun: energySun }).parameter.length;
function resourceTransactionBytes(name: 'DelegateResourceContract' | 'UnDelegateResourceContract'): number {
  const contract = new TronWebProto[name]!();
  contract.setOwnerAddress!(tronAddressBytes(hot.address));
  contract.setResource!(1); // ENERGY
  contract.setBalance!(1_000_000_000_000); // the staked TRX the lent energy stands for, in sun
  contract.setReceiverAddress!(tronAddressBytes(depositKeys[0]!.address));
  const typeUrlGrowth = `protocol.${name}`.length - 'protocol.TransferContract'.length;
  return sizes.topUp - transferParameter + (contract.serializeBinary!() as Uint8Array).length + typeUrlGrowth;
}
const delegateBytes = resourceTransactionBytes('DelegateResourceContract');
const undelegateBytes = resourceTransactionBytes('UnDelegateResourceContract');
const burned = (bytes: number) => (BigInt(bytes) + CHARGED_EXTRA_BYTES) * BANDWIDTH_FEE_SUN;

// The executed top-ups cost what the model says: the transfer's energy and both transactions' bandwidth.
const topUpEach = topUpFees[0]!;
if (topUpFees.some((fee) => fee !== energySun + burned(sizes.topUp) + burned(sizes.transfer))) throw new Error('an executed sweep did not cost what the fee model says');
// On the real chain an activated address's daily free bandwidth pays its one transfer a day: both ways alike.
const transferFree = BigInt(sizes.transfer) + CHARGED_EXTRA_BYTES <= FREE_BANDWIDTH_POINTS;
const transferBandwidth = transferFree ? 0n : burned(sizes.transfer);
const ways = [
  { way: 'TRX top-up', later: energySun + burned(sizes.topUp) + transferBandwidth, first: energySun + burned(sizes.topUp) + transferBandwidth + ACTIVATION_SUN, needs: 'nothing staked' },
  {
    way: 'delegated energy',
    later: burned(delegateBytes) + burned(undelegateBytes) + transferBandwidth,
    // Activation is its own TRX transfer here: nothing else sends the address TRX.
    first: burned(delegateBytes) + burned(undelegateBytes) + transferBandwidth + ACTIVATION_SUN + burned(sizes.topUp),
    needs: `TRX staked for ${ENERGY_TO_HOLDER.toLocaleString('en')} energy, lent for the transfer's block`,
  },
];

console.log(`Tron USDT sweeps on the fake node's fee model, ${addresses} addresses (${new Date().toISOString()})`);
console.log(`signed sizes: TRX transfer ${sizes.topUp} B, TRC-20 transfer ${sizes.transfer} B, DelegateResource ${delegateBytes} B, UnDelegateResource ${undelegateBytes} B`);
console.log(`executed on the fake node, fees as charged there (all bandwidth burned): ${trx(topUpEach)} TRX per address, the same for all ${addresses}`);
console.log(`the deposit's transfer uses ${BigInt(sizes.transfer) + CHARGED_EXTRA_BYTES} bandwidth points: ${transferFree ? 'within' : 'above'} the ${FREE_BANDWIDTH_POINTS} free a day`);
console.log('| way | TRX per later sweep | TRX per first sweep (activation included) | what else it needs |');
console.log('|---|---:|---:|---|');
for (const way of ways) console.log(`| ${way.way} | ${trx(way.later)} | ${trx(way.first)} | ${way.needs} |`);
await node.close();
