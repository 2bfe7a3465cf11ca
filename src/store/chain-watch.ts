import type { Sql } from './database.js';

export interface Cursor {
  /** The next block to read. */
  next: bigint;
  /** When a watcher first saw the chain differ from the blocks it linked, while that awaits a second sighting. */
  forkSeenAt: Date | null;
}

/** Where the watchers of `network` are, created at `start` the first time a watcher looks. */
export async function readCursor(sql: Sql, network: string, start: bigint): Promise<Cursor> {
  await sql.query('INSERT INTO chain_cursors (network, next_block) VALUES ($1, $2) ON CONFLICT (network) DO NOTHING', [network, start.toString()]);
  const [row] = await sql.query<{ next_block: string; fork_seen_at: Date | null }>(
    'SELECT next_block::text AS next_block, fork_seen_at FROM chain_cursors WHERE network = $1',
    [network],
  );
  return { next: BigInt(row!.next_block), forkSeenAt: row!.fork_seen_at };
}

/**
 * The highest block the watchers of `network` have linked into their own chain (the cursor's previous block):
 * a height the chain is proven to have reached, whatever a lagging backend says. Null before any watcher ran.
 */
export async function linkedHeight(sql: Sql, network: string): Promise<bigint | null> {
  const [row] = await sql.query<{ next_block: string }>('SELECT next_block::text AS next_block FROM chain_cursors WHERE network = $1', [network]);
  return row === undefined || row.next_block === '0' ? null : BigInt(row.next_block) - 1n;
}

/** A divergence first seen at `at` (null: none seen, or it was a lagging answer): kept until confirmed or cleared. */
export async function setForkSeen(sql: Sql, network: string, at: Date | null): Promise<void> {
  await sql.query('UPDATE chain_cursors SET fork_seen_at = $2 WHERE network = $1', [network, at]);
}

/**
 * Locks the cursor and answers whether it still is `expected`: the compare-and-set that lets only one of
 * several watchers commit what it read from that position.
 */
export async function claimCursor(tx: Sql, network: string, expected: bigint): Promise<boolean> {
  const [row] = await tx.query<{ next_block: string }>('SELECT next_block::text AS next_block FROM chain_cursors WHERE network = $1 FOR UPDATE', [network]);
  return row !== undefined && BigInt(row.next_block) === expected;
}

export async function moveCursor(tx: Sql, network: string, next: bigint): Promise<void> {
  await tx.query('UPDATE chain_cursors SET next_block = $2, fork_seen_at = NULL, updated_at = now() WHERE network = $1', [network, next.toString()]);
}

/** Stored block hashes from `from` up, by number. */
export async function storedBlocks(sql: Sql, network: string, from: bigint): Promise<Map<bigint, string>> {
  const rows = await sql.query<{ number: string; hash: string }>(
    'SELECT number::text AS number, hash FROM chain_blocks WHERE network = $1 AND number >= $2',
    [network, from.toString()],
  );
  return new Map(rows.map((r) => [BigInt(r.number), r.hash]));
}

/** Records the blocks just read and forgets those that fell out of the reorganization window. */
export async function recordBlocks(tx: Sql, network: string, blocks: { number: bigint; hash: string }[], keepFrom: bigint): Promise<void> {
  await tx.query(
    `INSERT INTO chain_blocks (network, number, hash) SELECT $1, n, h FROM unnest($2::bigint[], $3::text[]) AS b(n, h)
     ON CONFLICT (network, number) DO UPDATE SET hash = excluded.hash`,
    [network, blocks.map((b) => b.number.toString()), blocks.map((b) => b.hash)],
  );
  await tx.query('DELETE FROM chain_blocks WHERE network = $1 AND number < $2', [network, keepFrom.toString()]);
}

export async function forgetBlocksFrom(tx: Sql, network: string, from: bigint): Promise<void> {
  await tx.query('DELETE FROM chain_blocks WHERE network = $1 AND number >= $2', [network, from.toString()]);
}

export interface WatchedAddress {
  id: string;
  organization_id: string;
  mode: 'test' | 'live';
  asset: string;
  address: string;
}

/**
 * The live deposit addresses on `network` among `addresses`, in any case (the index is on lower(address)): base58
 * is case-sensitive, so the caller keeps those that are exactly the address it looked for.
 */
export function findLiveAddresses(sql: Sql, network: string, addresses: string[]): Promise<WatchedAddress[]> {
  if (addresses.length === 0) return Promise.resolve([]);
  return sql.query<WatchedAddress>(
    `SELECT id, organization_id, mode, asset, address FROM deposit_addresses
     WHERE mode = 'live' AND network = $1 AND lower(address) = ANY($2::text[])`,
    [network, addresses.map((a) => a.toLowerCase())],
  );
}

export type ChainDepositStatus = 'pending' | 'credited' | 'reversed';

export interface ChainDepositRow {
  network: string;
  tx_hash: string;
  output_index: number;
  block_number: string;
  block_hash: string;
  organization_id: string;
  mode: 'test' | 'live';
  address_id: string;
  asset: string;
  amount: string;
  from_address: string;
  transaction_id: string;
  status: ChainDepositStatus;
  /** Which credit of the transfer this is: above 1 once a reorganization reversed it and the new chain mined it again. */
  round: number;
  /** Failed credits so far: above 0 while pending, the deposit is quarantined. */
  credit_attempts: number;
}

const COLUMNS = `network, tx_hash, output_index, block_number::text AS block_number, block_hash, organization_id, mode, address_id, asset,
  amount::text AS amount, from_address, transaction_id, status, round, credit_attempts`;

/** Records a transfer seen on chain as pending; answers false when it was recorded before. */
export async function insertChainDeposit(tx: Sql, row: Omit<ChainDepositRow, 'status' | 'round' | 'credit_attempts'>): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO chain_deposits (network, tx_hash, output_index, block_number, block_hash, organization_id, mode, address_id, asset, amount, from_address, transaction_id, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending') ON CONFLICT DO NOTHING RETURNING 1`,
    [row.network, row.tx_hash, row.output_index, row.block_number, row.block_hash, row.organization_id, row.mode, row.address_id, row.asset, row.amount, row.from_address, row.transaction_id],
  );
  return inserted.length === 1;
}

/** The status of these on-chain identities where they were recorded before, keyed `tx_hash:output_index`. */
export async function knownChainDeposits(sql: Sql, network: string, txHashes: string[]): Promise<Map<string, ChainDepositStatus>> {
  if (txHashes.length === 0) return new Map();
  const rows = await sql.query<{ key: string; status: ChainDepositStatus }>(
    "SELECT tx_hash || ':' || output_index AS key, status FROM chain_deposits WHERE network = $1 AND tx_hash = ANY($2::text[])",
    [network, txHashes],
  );
  return new Map(rows.map((r) => [r.key, r.status]));
}

/**
 * A reversed deposit that a new chain mined again: pending once more, in its new block, as the next round of
 * credits, its retry state cleared.
 */
export async function reopenChainDeposit(tx: Sql, row: Pick<ChainDepositRow, 'network' | 'tx_hash' | 'output_index' | 'block_number' | 'block_hash'>): Promise<void> {
  await tx.query(
    `UPDATE chain_deposits SET status = 'pending', round = round + 1, block_number = $4, block_hash = $5, credit_attempts = 0, last_error = NULL, next_attempt_at = NULL
     WHERE network = $1 AND tx_hash = $2 AND output_index = $3 AND status = 'reversed'`,
    [row.network, row.tx_hash, row.output_index, row.block_number, row.block_hash],
  );
}

/** Pending deposits in blocks up to `maxBlock` that may be credited at `now` (a quarantined one once its retry is due), oldest first. */
export function dueChainDeposits(sql: Sql, network: string, maxBlock: bigint, now: Date): Promise<ChainDepositRow[]> {
  return sql.query<ChainDepositRow>(
    `SELECT ${COLUMNS} FROM chain_deposits WHERE network = $1 AND status = 'pending' AND block_number <= $2
       AND (next_attempt_at IS NULL OR next_attempt_at <= $3) ORDER BY block_number, tx_hash, output_index`,
    [network, maxBlock.toString(), now],
  );
}

/** Whether the deposit is still pending: another watcher may have credited it, or a reorganization forgotten it. */
export async function isPending(tx: Sql, row: Pick<ChainDepositRow, 'network' | 'tx_hash' | 'output_index'>): Promise<boolean> {
  const rows = await tx.query("SELECT 1 FROM chain_deposits WHERE network = $1 AND tx_hash = $2 AND output_index = $3 AND status = 'pending'", [
    row.network,
    row.tx_hash,
    row.output_index,
  ]);
  return rows.length === 1;
}

/** Deposits (pending or credited) in blocks from `from` up: what a reorganization at `from` takes away. */
export function chainDepositsFrom(sql: Sql, network: string, from: bigint): Promise<ChainDepositRow[]> {
  return sql.query<ChainDepositRow>(
    `SELECT ${COLUMNS} FROM chain_deposits WHERE network = $1 AND status <> 'reversed' AND block_number >= $2 ORDER BY block_number, tx_hash, output_index`,
    [network, from.toString()],
  );
}

export async function setChainDepositStatus(tx: Sql, row: Pick<ChainDepositRow, 'network' | 'tx_hash' | 'output_index'>, status: ChainDepositStatus): Promise<void> {
  await tx.query('UPDATE chain_deposits SET status = $4 WHERE network = $1 AND tx_hash = $2 AND output_index = $3', [row.network, row.tx_hash, row.output_index, status]);
}

/** A pending deposit whose block vanished: forgotten, so the transfer is recorded afresh if the new chain has it. */
export async function forgetChainDeposit(tx: Sql, row: Pick<ChainDepositRow, 'network' | 'tx_hash' | 'output_index'>): Promise<void> {
  await tx.query('DELETE FROM chain_deposits WHERE network = $1 AND tx_hash = $2 AND output_index = $3', [row.network, row.tx_hash, row.output_index]);
}
