import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Catalog } from '../../../domain/catalog.js';
import { DomainError } from '../../../domain/errors.js';
import { Decimal, toBaseUnits } from '../../../domain/money.js';
import type { ExpiringChainDriver, FinalPoint, Lookup, SignedTransfer } from '../expiring-driver.js';
import type { PayoutTransfer } from '../payout-transfer.js';
import { tronAddressBytes } from './address.js';
import { tronNodeHttp, type TronNodeCall } from './node-http.js';
import { SignedTransactionMessage, TransactionRawMessage } from './proto/messages.js';
import type { TronSigner } from './signer.js';
import { buildTransaction, signedTransactionBytes, trc20BalanceOfData, trc20TransferContract, trc20TransferData, trxTransferContract, type TronContract } from './transaction.js';

const SUN_PER_TRX = 1_000_000;
/** java-tron refuses a fee_limit above 15,000 TRX. */
const MAX_FEE_LIMIT_SUN = 15_000n * 1_000_000n;
/** The node counts a transaction's bandwidth as its serialized size plus this much for its result. */
const RESULT_BYTES = 64n;
/** Energy a TRC-20 transfer to a holder of the token burns (USDT: ~65k), and to an address holding none (~130k: a new balance slot). */
const TRANSFER_ENERGY = 65_000n;
const NEW_HOLDER_TRANSFER_ENERGY = 130_000n;
/** Bandwidth a signed transfer takes, with its result (RESULT_BYTES): TRC-20 ~345 bytes, TRX ~265; rounded up. */
const TRC20_BANDWIDTH_BYTES = 400n;
const TRX_BANDWIDTH_BYTES = 300n;
/** What the quote adds to the chain's price, in percent: room for a transfer a little dearer than the figures above. */
const QUOTE_MARGIN_PERCENT = 10n;
/** Tron's block slot: a block's time is at least this much after its parent's. */
const BLOCK_INTERVAL_MS = 3_000n;
/** The most blocks java-tron serves in one /walletsolidity/getblockbylimitnext. */
const BLOCKS_PER_REQUEST = 100n;

export interface TronDriverOptions {
  /** How long after the head block a signed transaction may land: a dropped one is signed again this much later. */
  expirationSeconds: number;
  /** The longest one call to the node may take. */
  timeoutMs: number;
  /** Network code → headers every call to its node carries (the provider's API key). */
  headers?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

interface Block {
  id: string;
  number: bigint;
  timestamp: number;
}

const hex41 = (address: string) => bytesToHex(tronAddressBytes(address));

function blockOf(answer: Record<string, unknown>, path: string): Block {
  const raw = (answer.block_header as { raw_data?: { number?: unknown; timestamp?: unknown } } | undefined)?.raw_data;
  if (typeof answer.blockID !== 'string' || typeof raw?.timestamp !== 'number') throw new Error(`the Tron node answered ${path} without a block`);
  // The genesis block has no number field (protobuf omits zeros).
  return { id: answer.blockID, number: BigInt(typeof raw.number === 'number' ? raw.number : 0), timestamp: raw.timestamp };
}

/** The node's words, which java-tron writes as hex of UTF-8 unless asked for `visible` output. */
function words(message: unknown): string {
  if (typeof message !== 'string') return '';
  const text = /^([0-9a-fA-F]{2})+$/.test(message) ? new TextDecoder().decode(hexToBytes(message)) : message;
  return text.slice(0, 200);
}

/**
 * The Tron driver of the expiring-payout engine over a node's HTTP API (docs/live-tron.md, "Payouts"): TRX and
 * TRC-20 transfers from the hot wallet, referencing the head block and expiring `expirationSeconds` after it, their
 * energy and bandwidth priced at the chain's parameters and capped by what the quote charged. Final means in a
 * solidified block; the deadline is passed once the latest solidified block's time reaches `expiration`.
 */
export class TronDriver implements ExpiringChainDriver {
  private readonly nodes = new Map<string, TronNodeCall>();

  constructor(
    private readonly catalog: Catalog,
    httpUrls: ReadonlyMap<string, string>,
    private readonly signer: TronSigner,
    private readonly options: TronDriverOptions,
  ) {
    for (const [network, url] of httpUrls) this.nodes.set(network, tronNodeHttp(url, options.timeoutMs, options.headers?.get(network)));
  }

  private node(network: string): TronNodeCall {
    const node = this.nodes.get(network);
    if (!node) throw new DomainError('provider_unavailable', `Live payouts on ${network} are not configured on this deployment.`);
    return node;
  }

  /** The chain's prices, in sun: per unit of energy, per byte of bandwidth, and what activating a new account burns. */
  private async prices(node: TronNodeCall) {
    const answer = await node('/wallet/getchainparameters', {});
    const params = new Map((answer.chainParameter as { key: string; value?: number }[] | undefined)?.map((p) => [p.key, BigInt(p.value ?? 0)]) ?? []);
    const energy = params.get('getEnergyFee');
    const bandwidth = params.get('getTransactionFee');
    if (energy === undefined || bandwidth === undefined) throw new Error('the Tron node answered /wallet/getchainparameters without getEnergyFee and getTransactionFee');
    return { energy, bandwidth, newAccount: (params.get('getCreateAccountFee') ?? 0n) + (params.get('getCreateNewAccountFeeInSystemContract') ?? 0n) };
  }

  /**
   * What a payout to `destination` burns beyond the network fee table's, in TRX (a decimal string), as only the
   * chain can tell: a TRC-20 transfer to an address holding none of the token writes a new balance slot, about
   * 65,000 more energy than one to a holder; TRX to an address never activated burns the activation fee. The quote
   * adds it to the fee, at the TRX price.
   */
  async newRecipientCost(network: string, asset: string, destination: string): Promise<string> {
    const { prices, fresh } = await this.recipient(network, asset, destination);
    if (!fresh || !prices) return '0';
    const sun = this.catalog.pair(asset, network)!.token_contract === null ? prices.newAccount : (NEW_HOLDER_TRANSFER_ENERGY - TRANSFER_ENERGY) * prices.energy;
    return new Decimal(sun.toString()).dividedBy(SUN_PER_TRX).toFixed();
  }

  /**
   * What a payout to `destination` burns now, in TRX (a decimal string), all of it priced as burned at the chain's
   * current `getEnergyFee` and `getTransactionFee`, plus QUOTE_MARGIN_PERCENT: a TRC-20 transfer's energy (65,000
   * to a holder of the token, 130,000 to an address holding none: a new balance slot) and bandwidth; a TRX
   * transfer's bandwidth, and the activation fee for an address never activated. The quote charges at least this,
   * at the TRX price: the fee follows the chain's prices and the coin's. A node that does not answer refuses the
   * quote: it could send nothing.
   */
  async transferCost(network: string, asset: string, destination: string): Promise<string> {
    const { prices, fresh } = await this.recipient(network, asset, destination);
    if (!prices) return '0';
    const sun =
      this.catalog.pair(asset, network)!.token_contract === null
        ? TRX_BANDWIDTH_BYTES * prices.bandwidth + (fresh ? prices.newAccount : 0n)
        : (fresh ? NEW_HOLDER_TRANSFER_ENERGY : TRANSFER_ENERGY) * prices.energy + TRC20_BANDWIDTH_BYTES * prices.bandwidth;
    return new Decimal(((sun * (100n + QUOTE_MARGIN_PERCENT)) / 100n).toString()).dividedBy(SUN_PER_TRX).toFixed();
  }

  /**
   * The chain's prices, and whether `destination` is new to the asset: never activated (TRX), holding none of the
   * token (TRC-20). Null prices for a pair the catalog lacks. A node that does not answer refuses the quote.
   */
  private async recipient(network: string, asset: string, destination: string): Promise<{ prices: Awaited<ReturnType<TronDriver['prices']>> | null; fresh: boolean }> {
    const pair = this.catalog.pair(asset, network);
    if (!pair) return { prices: null, fresh: false };
    const node = this.node(network);
    try {
      const prices = await this.prices(node);
      if (pair.token_contract === null) {
        const account = await node('/wallet/getaccount', { address: hex41(destination), visible: false });
        return { prices, fresh: Object.keys(account).length === 0 };
      }
      return { prices, fresh: (await this.tokenBalance(node, pair.token_contract, destination)) === 0n };
    } catch (error) {
      throw new DomainError('provider_unavailable', `The Tron node could not price this payout (${error instanceof Error ? error.message : String(error)}). Retry shortly.`);
    }
  }

  async funds(request: PayoutTransfer): Promise<{ held: bigint; needed: bigint }> {
    const node = this.node(request.network);
    const pair = this.catalog.pair(request.asset, request.network)!;
    const needed = toBaseUnits(request.amount, pair.decimals);
    const owner = this.signer.address;
    return { held: pair.token_contract === null ? await this.trxBalance(node, owner) : await this.tokenBalance(node, pair.token_contract, owner), needed };
  }

  /** What `holder` holds of TRX, in sun (an address never activated: nothing). */
  private async trxBalance(node: TronNodeCall, holder: string): Promise<bigint> {
    const account = await node('/wallet/getaccount', { address: hex41(holder), visible: false });
    return BigInt(typeof account.balance === 'number' ? account.balance : 0);
  }

  /** What `holder` holds of a TRC-20 token: its balanceOf, called as a constant (nothing is sent). */
  private async tokenBalance(node: TronNodeCall, token: string, holder: string): Promise<bigint> {
    const answer = await node('/wallet/triggerconstantcontract', {
      owner_address: hex41(this.signer.address),
      contract_address: hex41(token),
      data: bytesToHex(trc20BalanceOfData(holder)),
      visible: false,
    });
    const [balance] = (answer.constant_result as string[] | undefined) ?? [];
    if (balance === undefined || !/^[0-9a-f]{1,64}$/i.test(balance)) throw new Error('the Tron node answered balanceOf without a constant result');
    return BigInt(`0x${balance}`);
  }

  async sign(request: PayoutTransfer, feeCap: string): Promise<{ signed: SignedTransfer } | { refused: string } | { short: { held: bigint; needed: bigint } }> {
    const node = this.node(request.network);
    const pair = this.catalog.pair(request.asset, request.network)!;
    const amount = toBaseUnits(request.amount, pair.decimals);
    const capSun = BigInt(new Decimal(feeCap).times(SUN_PER_TRX).toFixed(0));
    const [head, prices] = await Promise.all([node('/wallet/getnowblock', {}).then((b) => blockOf(b, '/wallet/getnowblock')), this.prices(node)]);
    const owner = this.signer.address;
    let contract: TronContract;
    let burn: bigint;
    if (pair.token_contract === null) {
      contract = trxTransferContract({ owner, to: request.destination, amountSun: amount });
      const account = await node('/wallet/getaccount', { address: hex41(request.destination), visible: false });
      // An address that never held anything is activated by the transfer, which burns a fixed fee.
      burn = Object.keys(account).length === 0 ? prices.newAccount : 0n;
    } else {
      contract = trc20TransferContract({ owner, token: pair.token_contract, to: request.destination, amount });
      const simulated = await node('/wallet/triggerconstantcontract', {
        owner_address: hex41(owner),
        contract_address: hex41(pair.token_contract),
        data: bytesToHex(trc20TransferData(request.destination, amount)),
        visible: false,
      });
      const result = simulated.result as { result?: boolean; message?: string } | undefined;
      const failed = (simulated.transaction as { ret?: { ret?: string }[] } | undefined)?.ret?.[0]?.ret === 'FAILED';
      if (result?.result !== true || failed) return { refused: `The transfer would fail on chain: ${words(result?.message) || 'the simulation failed'}.` };
      if (typeof simulated.energy_used !== 'number') throw new Error('the Tron node answered /wallet/triggerconstantcontract without energy_used');
      // Energy the wallet has staked is not counted: the fee is priced as if every unit were burned.
      burn = BigInt(simulated.energy_used) * prices.energy;
    }
    const draft = { contract, refBlockId: head.id, timestamp: head.timestamp, expiration: head.timestamp + this.options.expirationSeconds * 1000 };
    // Sized with the largest fee_limit it could carry: the final transaction is no bigger.
    const sized = this.signed({ ...draft, feeLimitSun: Number(capSun < MAX_FEE_LIMIT_SUN ? capSun : MAX_FEE_LIMIT_SUN) });
    const bandwidthSun = (BigInt(hexToBytes(sized.raw).length) + RESULT_BYTES) * prices.bandwidth;
    if (burn + bandwidthSun > capSun) {
      return { refused: `The network fee now (${burn + bandwidthSun} sun) is above what the quote charged (${capSun} sun).` };
    }
    // The TRX that pays the fee (and is sent, for a TRX payout): a transaction the wallet cannot pay is not signed.
    const held = await this.trxBalance(node, owner);
    const needed = burn + bandwidthSun + (pair.token_contract === null ? amount : 0n);
    if (held < needed) return { short: { held, needed } };
    if (pair.token_contract === null) return { signed: this.signed(draft) };
    // The whole rest of the cap may burn for energy: an estimate a little short never runs the transfer out of it.
    const feeLimit = capSun - bandwidthSun < MAX_FEE_LIMIT_SUN ? capSun - bandwidthSun : MAX_FEE_LIMIT_SUN;
    return { signed: this.signed({ ...draft, feeLimitSun: Number(feeLimit) }) };
  }

  private signed(input: Parameters<typeof buildTransaction>[0]): SignedTransfer {
    const unsigned = buildTransaction(input);
    const raw = signedTransactionBytes(unsigned, this.signer.sign(unsigned));
    return { txId: bytesToHex(unsigned.txId), raw: bytesToHex(raw), deadline: { kind: 'expiration_ms', at: BigInt(input.expiration) } };
  }

  async broadcast(network: string, raw: string): Promise<{ accepted: true } | { accepted: false; reason: string }> {
    const answer = await this.node(network)('/wallet/broadcasthex', { transaction: raw });
    // Already in the node's pool or chain: an earlier send was taken.
    if (answer.result === true || answer.code === 'DUP_TRANSACTION_ERROR') return { accepted: true };
    return { accepted: false, reason: `${typeof answer.code === 'string' ? answer.code : 'no code'}: ${words(answer.message)}` };
  }

  async finalPoint(network: string): Promise<FinalPoint> {
    // One answer for both: the solidified head's time (what expirations are compared with) and its number.
    const block = blockOf(await this.node(network)('/walletsolidity/getnowblock', {}), '/walletsolidity/getnowblock');
    return { point: BigInt(block.timestamp), height: block.number };
  }

  async lookup(network: string, tx: SignedTransfer, final: FinalPoint): Promise<Lookup> {
    const node = this.node(network);
    const solid = await node('/walletsolidity/gettransactioninfobyid', { value: tx.txId });
    if (solid.id !== undefined) return { found: { final: true, ...outcomeOf(solid) } };
    const head = await node('/wallet/gettransactioninfobyid', { value: tx.txId });
    if (head.id !== undefined) return { found: { final: false, ...outcomeOf(head) } };
    // "Not found" carries no height: before its deadline that is nothing to prove, after it the blocks prove it.
    if (tx.deadline.kind !== 'expiration_ms' || final.point < tx.deadline.at) return { found: null, absenceProven: false };
    return absenceInBlocks(node, tx.txId, signedAt(tx.raw), tx.deadline.at, final);
  }
}

/**
 * Whether the solidified blocks prove the transaction landed nowhere: every block that could hold it served, in
 * order, and none holding it. It can land only after its reference block, the head it was signed at (whose time its
 * `timestamp` is), and in no block after the first at or past its `expiration`. A block follows its parent by at
 * least one 3-second slot, so the final head's number less the slots since `signedAt` is at or below the reference
 * block: the scan starts there. Each block served is its own proof of what it holds, whichever backend served it;
 * one missing (a backend behind the final point read first) proves nothing, and the next attempt asks again.
 */
async function absenceInBlocks(node: TronNodeCall, txId: string, signedAt: bigint, expiration: bigint, final: FinalPoint): Promise<Lookup> {
  let next = final.height - (final.point - signedAt) / BLOCK_INTERVAL_MS;
  if (next < 0n) next = 0n;
  while (next <= final.height) {
    const answer = await node('/walletsolidity/getblockbylimitnext', { startNum: Number(next), endNum: Number(next + BLOCKS_PER_REQUEST) });
    const served = (answer.block as Record<string, unknown>[] | undefined) ?? [];
    for (const raw of served) {
      const block = blockOf(raw, '/walletsolidity/getblockbylimitnext');
      if (block.number !== next) return { found: null, absenceProven: false };
      const txIds = ((raw.transactions as { txID?: unknown }[] | undefined) ?? []).map((t) => t.txID);
      // Landed, final: its outcome is read from its info, which the backend that answered first had not yet.
      if (txIds.includes(txId)) return { found: { final: false, succeeded: true, block: block.number } };
      if (BigInt(block.timestamp) >= expiration) return { found: null, absenceProven: true };
      next += 1n;
    }
    if (BigInt(served.length) < BLOCKS_PER_REQUEST) return { found: null, absenceProven: false };
  }
  return { found: null, absenceProven: false };
}

/** The `timestamp` the transaction was signed with: the time of its reference block (see `sign`). */
function signedAt(raw: string): bigint {
  const { raw_data: rawData } = SignedTransactionMessage.decode(hexToBytes(raw)) as unknown as { raw_data: Uint8Array };
  const { timestamp } = TransactionRawMessage.toObject(TransactionRawMessage.decode(rawData), { longs: String }) as { timestamp?: string };
  return BigInt(timestamp ?? 0);
}

/**
 * A transaction's info: a TRX transfer that failed says `result: FAILED`; a contract call's receipt says SUCCESS,
 * or why it failed (OUT_OF_ENERGY, REVERT…).
 */
function outcomeOf(info: Record<string, unknown>): { succeeded: boolean; block: bigint } {
  if (typeof info.blockNumber !== 'number') throw new Error('the Tron node answered a transaction info without its block');
  const receipt = (info.receipt as { result?: string } | undefined)?.result;
  return { succeeded: info.result !== 'FAILED' && (receipt === undefined || receipt === 'SUCCESS'), block: BigInt(info.blockNumber) };
}
