import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { utils } from 'tronweb';
import { tronAddressBytes } from '../../../src/providers/chains/tron/address.js';

/*
 * A Tron node's HTTP API as java-tron documents it (/wallet/*, /walletsolidity/*), over a chain held in memory.
 * Every broadcast is decoded and its signature checked with TronWeb's own code (an implementation independent of
 * ours); blocks are produced on demand, 3 s apart in chain time, and the solidified head follows `solidLag` blocks
 * behind. TRC-20 `transfer`s cost 65,000 energy to a holder and 130,000 to an address holding none (the figures of
 * USDT on mainnet); a fee_limit short of that runs out of energy, burning it. Tests make it refuse, drop or lose,
 * and answer as a backend lagging the chain (`behind`).
 */

const BLOCK_MS = 3_000;
const ENERGY_FEE_SUN = 100n;
export const BANDWIDTH_FEE_SUN = 1_000n;
/** The selector of TRC-20 `balanceOf(address)`. */
const BALANCE_OF = '70a08231';
export const ENERGY_TO_HOLDER = 65_000n;
export const ENERGY_TO_NEW_HOLDER = 130_000n;

const { Transaction } = (globalThis as unknown as {
  TronWebProto: {
    Transaction: {
      deserializeBinary(bytes: Uint8Array): { getRawData(): { serializeBinary(): Uint8Array }; getSignatureList_asU8(): Uint8Array[] };
      raw: { deserializeBinary(bytes: Uint8Array): { getContractList(): { getType(): number }[] } };
    };
  };
}).TronWebProto;

interface Decoded {
  txId: string;
  raw: string;
  type: 'TransferContract' | 'TriggerSmartContract';
  owner: string;
  expiration: number;
  feeLimit: bigint;
  refBlockHash: string;
  /** TRX transfer: to and amount; TRC-20: token, to (hex 41…), amount. */
  to: string;
  token: string | null;
  amount: bigint;
}

interface Info {
  id: string;
  blockNumber: number;
  blockTimeStamp: number;
  fee: number;
  receipt: { result?: string; energy_usage_total?: number; net_fee: number };
  result?: 'FAILED';
}

interface Block {
  number: number;
  timestamp: number;
  id: string;
  txIds: string[];
}

const hex41 = (address: string) => bytesToHex(tronAddressBytes(address));

export class FakeTronNode {
  readonly blocks: Block[] = [];
  /** Blocks the solidified head is behind the head. */
  solidLag = 0;
  /** Sun per unit of energy, as getchainparameters says and blocks burn. */
  energyFeeSun = ENERGY_FEE_SUN;
  /** Energy a block's execution takes beyond what the node's simulation said, in percent (a contract's dynamic penalty). */
  executionPenaltyPercent = 0n;
  readonly pool = new Map<string, Decoded>();
  /** Every transaction a broadcast was answered SUCCESS for, kept or dropped. */
  readonly taken = new Map<string, Decoded>();
  /** Every transaction a block executed, by id, with what it came to. */
  readonly executed = new Map<string, { tx: Decoded; info: Info }>();
  /** TRC-20 balances: token (hex 41…) → holder (hex 41…) → amount. */
  readonly tokens = new Map<string, Map<string, bigint>>();
  readonly trx = new Map<string, bigint>();
  /** How many times each path was called. */
  readonly calls = new Map<string, number>();
  /** Each request's path and the API key it carried in TronGrid's `TRON-PRO-API-KEY` header. */
  readonly apiKeys: { path: string; key: string | undefined }[] = [];
  /** Broadcasts refused with this code while set (the bytes are not taken). */
  refuseBroadcasts: { code: string; message: string } | null = null;
  /** Broadcasts taken but not kept: the pool forgets them (a transaction that never lands). */
  dropBroadcasts = false;
  /** Paths whose next answer is lost: the node does the work, the caller gets no answer. */
  readonly loseNext = new Set<string>();
  /**
   * How many blocks behind the chain the backend answering this request is (0: up to date), asked once per request:
   * a load-balanced endpoint whose nodes lag each other. A lagging backend answers its heads (and the solidified
   * block `solidLag` below), transaction infos and solidified blocks as of its own head: newer blocks' absent.
   */
  behind: (path: string) => number = () => 0;
  /** Each request's fate: lost before the node sees it, its answer lost after the work, or answered. */
  decide: (path: string) => 'pass' | 'drop-request' | 'drop-answer' = () => 'pass';
  private server!: http.Server;
  url = '';

  static async start(): Promise<FakeTronNode> {
    const node = new FakeTronNode();
    node.blocks.push({ number: 0, timestamp: 1_800_000_000_000, id: blockId(0), txIds: [] });
    node.server = http.createServer((req, res) => void node.serve(req, res));
    await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', resolve));
    node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}`;
    return node;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  get head(): Block {
    return this.blocks.at(-1)!;
  }

  get solid(): Block {
    return this.blocks[Math.max(0, this.blocks.length - 1 - this.solidLag)]!;
  }

  mintToken(token: string, holder: string, amount: bigint): void {
    const balances = this.tokens.get(hex41(token)) ?? new Map<string, bigint>();
    balances.set(hex41(holder), (balances.get(hex41(holder)) ?? 0n) + amount);
    this.tokens.set(hex41(token), balances);
  }

  tokenBalance(token: string, holder: string): bigint {
    return this.tokens.get(hex41(token))?.get(hex41(holder)) ?? 0n;
  }

  setTrx(holder: string, amount: bigint): void {
    this.trx.set(hex41(holder), amount);
  }

  trxBalance(holder: string): bigint {
    return this.trx.get(hex41(holder)) ?? 0n;
  }

  /** Transfers that moved value, to `to`: what a payout is checked by (never more than one per payout). */
  transfersTo(to: string): Decoded[] {
    return [...this.executed.values()].filter((e) => e.tx.to === hex41(to) && e.info.result !== 'FAILED').map((e) => e.tx);
  }

  /** `count` blocks, each taking what the pool holds that it may (unexpired, its reference block known). */
  mine(count = 1): void {
    for (let i = 0; i < count; i++) {
      const parent = this.head;
      const block: Block = { number: parent.number + 1, timestamp: parent.timestamp + BLOCK_MS, id: blockId(parent.number + 1), txIds: [] };
      for (const [txId, tx] of this.pool) {
        this.pool.delete(txId);
        // java-tron: a block includes a transaction only while its expiration is after the parent's time.
        if (tx.expiration <= parent.timestamp || this.executed.has(txId)) continue;
        block.txIds.push(txId);
        this.executed.set(txId, { tx, info: this.execute(tx, block) });
      }
      this.blocks.push(block);
    }
  }

  /** Blocks until the solidified head's time is at or past `ms`. */
  mineUntilSolidAt(ms: number): void {
    while (this.solid.timestamp < ms) this.mine(1);
  }

  private energyOf(tx: Decoded): bigint {
    return this.tokens.get(tx.token!)?.get(tx.to) ? ENERGY_TO_HOLDER : ENERGY_TO_NEW_HOLDER;
  }

  private execute(tx: Decoded, block: Block): Info {
    const netFee = Number(BigInt(hexToBytes(tx.raw).length + 64) * BANDWIDTH_FEE_SUN);
    const info: Info = { id: tx.txId, blockNumber: block.number, blockTimeStamp: block.timestamp, fee: netFee, receipt: { net_fee: netFee } };
    if (tx.type === 'TransferContract') {
      const from = this.trx.get(tx.owner) ?? 0n;
      if (from < tx.amount) return { ...info, result: 'FAILED' };
      this.trx.set(tx.owner, from - tx.amount);
      this.trx.set(tx.to, (this.trx.get(tx.to) ?? 0n) + tx.amount);
      return info;
    }
    const energy = (this.energyOf(tx) * (100n + this.executionPenaltyPercent)) / 100n;
    if (energy * this.energyFeeSun > tx.feeLimit) {
      return { ...info, fee: netFee + Number(tx.feeLimit), result: 'FAILED', receipt: { ...info.receipt, result: 'OUT_OF_ENERGY', energy_usage_total: Number(tx.feeLimit / this.energyFeeSun) } };
    }
    const balances = this.tokens.get(tx.token!) ?? new Map<string, bigint>();
    const from = balances.get(tx.owner) ?? 0n;
    const receipt = { ...info.receipt, energy_usage_total: Number(energy) };
    if (from < tx.amount) return { ...info, result: 'FAILED', receipt: { ...receipt, result: 'REVERT' } };
    balances.set(tx.owner, from - tx.amount);
    balances.set(tx.to, (balances.get(tx.to) ?? 0n) + tx.amount);
    this.tokens.set(tx.token!, balances);
    return { ...info, fee: netFee + Number(energy * this.energyFeeSun), receipt: { ...receipt, result: 'SUCCESS' } };
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '';
    this.calls.set(path, (this.calls.get(path) ?? 0) + 1);
    this.apiKeys.push({ path, key: req.headers['tron-pro-api-key'] as string | undefined });
    const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>;
    const fate = this.loseNext.delete(path) ? 'drop-answer' : this.decide(path);
    if (fate === 'drop-request') {
      res.destroy();
      return;
    }
    const answer = this.answer(path, body);
    if (fate === 'drop-answer') {
      res.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }

  private answer(path: string, body: Record<string, unknown>): unknown {
    const lag = this.behind(path);
    // The answering backend's head and solidified block.
    const head = this.blocks[Math.max(0, this.blocks.length - 1 - lag)]!;
    const solid = this.blocks[Math.max(0, head.number - this.solidLag)]!;
    switch (path) {
      case '/wallet/getnowblock':
        return blockJson(head);
      case '/walletsolidity/getnowblock':
        return blockJson(solid);
      case '/walletsolidity/getblockbylimitnext': {
        // java-tron: the solidified blocks numbered startNum up to (not including) endNum, at most 100; {} when none.
        const [start, end] = [Number(body.startNum), Math.min(Number(body.endNum), Number(body.startNum) + 100, solid.number + 1)];
        const served = this.blocks.slice(Math.max(0, start), Math.max(0, end));
        return served.length === 0 ? {} : { block: served.map((b) => ({ ...blockJson(b), ...(b.txIds.length > 0 ? { transactions: b.txIds.map((txID) => ({ txID })) } : {}) })) };
      }
      case '/wallet/getchainparameters':
        return {
          chainParameter: [
            { key: 'getTransactionFee', value: Number(BANDWIDTH_FEE_SUN) },
            { key: 'getEnergyFee', value: Number(this.energyFeeSun) },
            { key: 'getCreateAccountFee', value: 100_000 },
            { key: 'getCreateNewAccountFeeInSystemContract', value: 1_000_000 },
          ],
        };
      case '/wallet/getaccount': {
        const balance = this.trx.get(String(body.address));
        return balance === undefined ? {} : { address: body.address, balance: Number(balance) };
      }
      case '/wallet/triggerconstantcontract':
        return this.simulate(body);
      case '/wallet/broadcasthex':
        return this.broadcast(String(body.transaction));
      case '/walletsolidity/gettransactioninfobyid':
      case '/wallet/gettransactioninfobyid': {
        const found = this.executed.get(String(body.value));
        const visible = found && found.info.blockNumber <= (path.startsWith('/wallet/') ? head : solid).number;
        return visible ? found.info : {};
      }
      default:
        return { Error: `no such path ${path}` };
    }
  }

  private simulate(body: Record<string, unknown>): unknown {
    const data = String(body.data);
    const token = String(body.contract_address);
    // balanceOf(address): a constant call answering the holder's balance, as a 32-byte word.
    if (data.startsWith(BALANCE_OF)) {
      const balance = this.tokens.get(token)?.get(`41${data.slice(32, 72)}`) ?? 0n;
      return { result: { result: true }, energy_used: 0, constant_result: [balance.toString(16).padStart(64, '0')], transaction: { ret: [{}] } };
    }
    const tx = { token, owner: String(body.owner_address), to: `41${data.slice(32, 72)}`, amount: BigInt(`0x${data.slice(72, 136)}`) } as Decoded;
    const enough = (this.tokens.get(token)?.get(tx.owner) ?? 0n) >= tx.amount;
    return {
      result: { result: true },
      energy_used: Number(this.energyOf(tx)),
      constant_result: [''],
      transaction: { ret: [enough ? {} : { ret: 'FAILED' }] },
    };
  }

  private broadcast(hex: string): unknown {
    const tx = decode(hex);
    if (!tx) return { result: false, code: 'SIGERROR', message: Buffer.from('Validate signature error').toString('hex') };
    if (this.pool.has(tx.txId) || this.executed.has(tx.txId)) return { result: false, code: 'DUP_TRANSACTION_ERROR', message: '', txid: tx.txId };
    if (this.refuseBroadcasts) return { result: false, ...this.refuseBroadcasts, txid: tx.txId };
    if (tx.expiration <= this.head.timestamp) return { result: false, code: 'TRANSACTION_EXPIRATION_ERROR', message: '', txid: tx.txId };
    if (!this.blocks.some((b) => b.id.slice(16, 32) === tx.refBlockHash)) return { result: false, code: 'TAPOS_ERROR', message: '', txid: tx.txId };
    this.taken.set(tx.txId, tx);
    if (!this.dropBroadcasts) this.pool.set(tx.txId, tx);
    return { result: true, code: 'SUCCESS', txid: tx.txId };
  }
}

const blockId = (number: number) => `${number.toString(16).padStart(16, '0')}${randomBytes(24).toString('hex')}`;

const blockJson = (block: Block) => ({
  blockID: block.id,
  block_header: { raw_data: { number: block.number, timestamp: block.timestamp, txTrieRoot: '0'.repeat(64) } },
});

/** The signed transaction as TronWeb reads it, or null when its signature does not recover to its owner. */
function decode(hex: string): Decoded | null {
  const signed = Transaction.deserializeBinary(hexToBytes(hex));
  const rawData = signed.getRawData().serializeBinary();
  const rawHex = bytesToHex(rawData);
  const txId = createHash('sha256').update(rawData).digest('hex');
  const type = Transaction.raw.deserializeBinary(rawData).getContractList()[0]!.getType() === 1 ? 'TransferContract' : 'TriggerSmartContract';
  const json = utils.deserializeTx.deserializeTransaction(type, rawHex) as {
    contract: { parameter: { value: Record<string, string | number> } }[];
    expiration: number;
    fee_limit: number;
    ref_block_hash: string;
  };
  const value = json.contract[0]!.parameter.value;
  const owner = String(value.owner_address).toLowerCase();
  const signature = signed.getSignatureList_asU8()[0];
  if (!signature || utils.crypto.ecRecover(txId, bytesToHex(signature)).toLowerCase() !== owner) return null;
  const common = { txId, raw: hex, type, owner, expiration: json.expiration, feeLimit: BigInt(json.fee_limit), refBlockHash: json.ref_block_hash.toLowerCase() } as const;
  if (type === 'TransferContract') return { ...common, to: String(value.to_address).toLowerCase(), token: null, amount: BigInt(value.amount!) };
  const data = String(value.data).toLowerCase();
  return { ...common, token: String(value.contract_address).toLowerCase(), to: `41${data.slice(32, 72)}`, amount: BigInt(`0x${data.slice(72, 136)}`) };
}
