import type { FastifyBaseLogger } from 'fastify';
import { formatUnits } from 'viem';
import type { Catalog } from '../domain/catalog.js';
import type { Clock } from '../domain/clock.js';
import { Decimal } from '../domain/money.js';
import type { Metrics } from '../metrics/metrics.js';
import type { EvmBlock, EvmChainReader, EvmTransfer } from '../providers/chains/evm-rpc.js';
import * as watch from '../store/chain-watch.js';
import type { Database } from '../store/database.js';
import { lockIntentsOfTransactions } from '../store/payment-intents.js';
import { failDeposit } from '../store/transactions.js';
import { reverseDeposit, type CreditPrices } from '../use-cases/deposits.js';
import { ChainCredits, recordChainDeposits, tenantOfRow, type SeenChainDeposit } from './chain-deposits.js';

export interface EvmWatcherOptions {
  network: string;
  /** Blocks one tick reads at most. */
  batchBlocks: number;
  /** Blocks below the cursor whose hashes are kept; a reorganization deeper than this stops the watcher. */
  reorgWindow: number;
  /**
   * Seconds between two sightings of the chain differing from the linked blocks before credited deposits are
   * reversed: one answer of a backend stuck on an abandoned branch reverses nothing.
   */
  forkConfirmSeconds: number;
  /** Where a network's first tick starts; the chain's head when unset. */
  startBlock?: bigint;
}

/** The blocks one tick read and linked, and the deposits to our addresses in them. */
interface LinkedRead {
  blocks: { number: bigint; hash: string }[];
  deposits: SeenChainDeposit[];
}

/**
 * Follows one network served over Ethereum's JSON-RPC (an EVM network, or Tron through its reader that speaks
 * Tron's addresses) for deposits to live addresses. The endpoint is a crowd of backends that lag each other
 * (docs/architecture.md, "What the service assumes of its RPC endpoints"): every answer may come from another one.
 * So the watcher keeps its own chain: blocks linked by their parent hashes from the last one it recorded, and it
 * counts confirmations on that chain, never on a head someone claimed. Each tick: the head (a head below the
 * cursor, or a missing block, only says that backend is behind: the tick skips); a check that the last block
 * linked is still the chain's (only another hash at the same height is a fork, and one that would reverse credits
 * is believed when seen again after `forkConfirmSeconds`); the next blocks up to the batch size, as far as they
 * link, with their native transfers and the catalog tokens' Transfer logs (an answer's silence about a block is
 * believed only where the block's bloom allows it, or from a node that proves it has the block); then, in one
 * transaction that first re-checks the cursor under its row lock (so of several watchers exactly one commits a
 * range), the blocks, the transfers as pending deposits and the cursor. RPC calls all happen before that
 * transaction: a tick that fails or dies before then commits nothing, and the next one reads the same blocks
 * again. Last, every pending deposit with its confirmations on the linked chain is credited, each in a
 * transaction of its own, so that one whose credit fails (quarantined, tried again later) holds back neither the
 * cursor nor the others.
 */
export class EvmWatcher {
  /** The endpoint was found to serve the catalog's chain; asked again until it does. */
  private chainChecked = false;
  private readonly credits: ChainCredits;

  constructor(
    private readonly db: Database,
    private readonly chain: EvmChainReader,
    private readonly catalog: Catalog,
    private readonly clock: Clock,
    creditPrices: () => Promise<CreditPrices>,
    private readonly options: EvmWatcherOptions,
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'error'>,
    metrics: Pick<Metrics, 'credited' | 'creditFailed'>,
  ) {
    this.credits = new ChainCredits(db, clock, creditPrices, log, metrics);
  }

  get network(): string {
    return this.options.network;
  }

  /** One pass; answers how many deposits it credited. */
  async tick(): Promise<number> {
    const { network } = this.options;
    await this.checkChain();
    const head = await this.chain.head();
    const cursor = await watch.readCursor(this.db, network, this.options.startBlock ?? head);
    const known = await watch.storedBlocks(this.db, network, cursor.next - BigInt(this.options.reorgWindow));
    const fork = await this.findFork(cursor.next, head, known);
    if (fork === 'behind') return 0;
    if (fork !== null) {
      await this.rewind(cursor.next, fork);
      return 0;
    }
    if (cursor.forkSeenAt !== null) await watch.setForkSeen(this.db, network, null);
    const wanted = cursor.next + BigInt(this.options.batchBlocks) - 1n;
    const read = head >= cursor.next ? await this.read(cursor.next, wanted < head ? wanted : head, known.get(cursor.next - 1n)) : { blocks: [], deposits: [] };
    // The chain changed under the cursor, or the backend was behind it: the next tick finds out which.
    if (read === null) return 0;
    if (read.blocks.length === 0) return this.confirm(cursor.next);
    const next = read.blocks.at(-1)!.number + 1n;
    const recorded = await this.db.transaction(async (tx) => {
      if (!(await watch.claimCursor(tx, network, cursor.next))) return false;
      await watch.recordBlocks(tx, network, read.blocks, next - 1n - BigInt(this.options.reorgWindow));
      await recordChainDeposits(tx, this.clock, network, read.deposits);
      await watch.moveCursor(tx, network, next);
      return true;
    });
    // Another watcher committed these blocks first; it credits what they made due.
    return recorded ? this.confirm(next) : 0;
  }

  /** A deposit address on one chain may be anybody's on another: a watcher never reads a chain it was not set up for. */
  private async checkChain(): Promise<void> {
    if (this.chainChecked) return;
    const expected = this.catalog.network(this.options.network)!.chain_id;
    const served = await this.chain.chainId();
    if (served !== expected) {
      throw new Error(`${this.options.network}: the RPC URL serves chain ${served}, not ${expected}; the watcher reads nothing until it is fixed`);
    }
    this.chainChecked = true;
  }

  /**
   * The lowest block number whose stored hash the chain now has another one for; null when the last block linked
   * is still there (its hash commits to every block before it); `behind` when the answers came from a backend that
   * has not reached the cursor (a head below it, or no block where one was linked): nothing to conclude.
   */
  private async findFork(cursor: bigint, head: bigint, known: Map<bigint, string>): Promise<bigint | null | 'behind'> {
    if (!known.has(cursor - 1n)) return null;
    if (head < cursor - 1n) return 'behind';
    let number = cursor - 1n;
    while (known.has(number)) {
      const block = await this.chain.block(number);
      if (block === null) return 'behind';
      if (block.hash === known.get(number)) break;
      number--;
    }
    if (number === cursor - 1n) return null;
    if (!known.has(number) && number < Math.min(...[...known.keys()].map(Number))) {
      throw new Error(
        `${this.options.network}: every stored block hash differs from the chain, a reorganization deeper than CONNECT_EVM_REORG_WINDOW ` +
          `(${this.options.reorgWindow}) or another chain behind the RPC URL; the watcher stops until the operator checks`,
      );
    }
    return number + 1n;
  }

  /**
   * Blocks from `fork` up are gone: deposits seen in them and not yet confirmed are forgotten (the blocks are
   * read again), credited ones are reversed and the operator is told. Reversing a credit takes two sightings of
   * the fork, `forkConfirmSeconds` apart: the first is recorded, and the tick waits.
   */
  private async rewind(cursor: bigint, fork: bigint): Promise<void> {
    const { network, forkConfirmSeconds } = this.options;
    const rewound = await this.db.transaction(async (tx) => {
      if (!(await watch.claimCursor(tx, network, cursor))) return false;
      const deposits = await watch.chainDepositsFrom(tx, network, fork);
      const credited = deposits.filter((d) => d.status !== 'pending');
      const now = this.clock.now();
      // Read again under the cursor's lock: another watcher may have seen the fork first, or seen it gone.
      const { forkSeenAt } = await watch.readCursor(tx, network, cursor);
      if (credited.length > 0 && (forkSeenAt === null || now.getTime() - forkSeenAt.getTime() < forkConfirmSeconds * 1000)) {
        if (forkSeenAt === null) await watch.setForkSeen(tx, network, now);
        return false;
      }
      await lockIntentsOfTransactions(tx, credited.map((d) => d.transaction_id));
      for (const deposit of deposits) {
        if (deposit.status === 'pending') {
          await watch.forgetChainDeposit(tx, deposit);
          await failDeposit(tx, deposit.transaction_id);
          continue;
        }
        const { unrecovered, refunds } = await reverseDeposit(
          tx,
          tenantOfRow(deposit),
          { network, txHash: deposit.tx_hash, outputIndex: deposit.output_index, round: deposit.round, transactionId: deposit.transaction_id },
          this.clock,
        );
        await watch.setChainDepositStatus(tx, deposit, 'reversed');
        this.log.error(
          {
            network,
            txHash: deposit.tx_hash,
            outputIndex: deposit.output_index,
            organizationId: deposit.organization_id,
            amount: deposit.amount,
            unrecovered: unrecovered.toFixed(),
            refundsCancelRequested: refunds.cancelRequested,
            refundsBeyondReceived: refunds.sent,
          },
          'chain watcher: a credited deposit vanished in a reorganization deeper than its confirmations; its credit was reversed (deposit.reversed)',
        );
      }
      await watch.forgetBlocksFrom(tx, network, fork);
      await watch.moveCursor(tx, network, fork);
      return true;
    });
    if (rewound) this.log.warn({ network, fork: fork.toString(), cursor: cursor.toString() }, 'chain watcher: reorganization, reading again from the fork');
    else this.log.warn({ network, fork: fork.toString() }, 'chain watcher: the chain differs from the blocks read below credited deposits; they are reversed if it still does after CONNECT_EVM_FORK_CONFIRM_SECONDS');
  }

  /**
   * The blocks `from`..`to` that link to `parent` and to each other, as far as they do, and our deposits in them;
   * null when the first does not link (the chain changed under the cursor) or is missing. A missing block ends the
   * read there: the backend that answered is behind, and the next tick goes on.
   */
  private async read(from: bigint, to: bigint, parent: string | undefined): Promise<LinkedRead | null> {
    const numbers = Array.from({ length: Number(to - from) + 1 }, (_, i) => from + BigInt(i));
    const blocks: EvmBlock[] = [];
    let expected = parent;
    for (const block of await Promise.all(numbers.map((n) => this.chain.block(n)))) {
      if (block === null || (expected !== undefined && block.parentHash !== expected)) break;
      blocks.push(block);
      expected = block.hash;
    }
    if (blocks.length === 0) return null;
    const tokens = this.tokens();
    const logs = await this.chain.tokenTransfers([...tokens.keys()], blocks);
    const deposits = await this.ours([...blocks.flatMap((b) => b.nativeTransfers), ...logs], tokens);
    return { blocks: blocks.map((b) => ({ number: b.number, hash: b.hash })), deposits };
  }

  /** Catalog token contracts on this network (normalized by the reader) → asset code. */
  private tokens(): Map<string, string> {
    const tokens = new Map<string, string>();
    for (const asset of this.catalog.data.assets) {
      const contract = asset.networks.find((n) => n.network === this.options.network)?.token_contract;
      if (contract) tokens.set(this.chain.normalize(contract), asset.code);
    }
    return tokens;
  }

  /** The transfers that pay one of our live addresses in the asset it was minted for. */
  private async ours(transfers: EvmTransfer[], tokens: Map<string, string>): Promise<SeenChainDeposit[]> {
    const { network } = this.options;
    const { normalize } = this.chain;
    const addresses = await watch.findLiveAddresses(this.db, network, [...new Set(transfers.map((t) => normalize(t.to)))]);
    const native = this.catalog.data.networks.find((n) => n.code === network)!.native_asset;
    const deposits: SeenChainDeposit[] = [];
    for (const transfer of transfers) {
      const asset = transfer.token === null ? native : tokens.get(normalize(transfer.token))!;
      const recipients = addresses.filter((a) => normalize(a.address) === normalize(transfer.to));
      const address = recipients.find((a) => a.asset === asset);
      if (!address) {
        if (recipients.length > 0) {
          this.log.warn({ network, txHash: transfer.txHash, to: transfer.to, asset }, 'chain watcher: a transfer in another asset than the address was minted for is not credited; recover it with the offline key');
        }
        continue;
      }
      if (transfer.value === 0n) continue;
      if (transfer.token === null && !(await this.chain.succeeded(transfer.txHash))) continue;
      const decimals = this.catalog.pair(asset, network)!.decimals;
      deposits.push({
        addressId: address.id,
        tenant: tenantOfRow(address),
        amount: new Decimal(formatUnits(transfer.value, decimals)),
        txHash: transfer.txHash,
        outputIndex: transfer.outputIndex,
        from: transfer.from,
        blockNumber: transfer.blockNumber,
        blockHash: transfer.blockHash,
      });
    }
    return deposits;
  }

  /**
   * Credits every pending deposit with its pair's confirmations on the linked chain (the including block counts as
   * the first, the last one linked, below `cursor`, as the newest) whose credit is due, oldest first, each in its
   * own transaction. A credit that throws quarantines its deposit, and the next one is credited all the same.
   */
  private async confirm(cursor: bigint): Promise<number> {
    const { network } = this.options;
    const tip = cursor - 1n;
    const due = (await watch.dueChainDeposits(this.db, network, tip, this.clock.now())).filter(
      (deposit) => tip - BigInt(deposit.block_number) + 1n >= BigInt(this.catalog.pair(deposit.asset, network)!.confirmations_required),
    );
    // A reorganization another watcher found since (the cursor moved back) is never credited through.
    return this.credits.creditDue(network, due, (tx) => watch.claimCursor(tx, network, cursor));
  }
}
