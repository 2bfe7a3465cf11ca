import type { Sql } from './database.js';
import type { WatchedAddress } from './chain-watch.js';

/** Which live addresses one tick reads (docs/live-solana.md, "What the watcher costs"). */
export interface SolanaReadPlan {
  /** Addresses of intents that expired before this are no longer read. */
  expiredSince: Date;
  /** A standalone address with no activity since this is idle… */
  idleSince: Date;
  /** …and is read again only once its last read is older than this. */
  idleReadBefore: Date;
  /** At most this many, the least recently read first. */
  limit: number;
}

/**
 * The live addresses of `network` that can still be paid and are due: standalone ones (idle ones only now and
 * then), and those of intents that expire after `expiredSince` (open ones, and closed ones for a while, for late
 * payments). The least recently read come first, those never read before any: a tick that spends its call
 * budget before the end leaves the rest first in line for the next.
 */
export function dueSolanaAddresses(sql: Sql, network: string, plan: SolanaReadPlan): Promise<WatchedAddress[]> {
  return sql.query<WatchedAddress>(
    `SELECT a.id, a.organization_id, a.mode, a.asset, a.address FROM deposit_addresses a
     LEFT JOIN payment_intents i ON i.id = a.payment_intent_id
     LEFT JOIN solana_address_reads r ON r.address_id = a.id
     WHERE a.mode = 'live' AND a.network = $1 AND (a.payment_intent_id IS NULL OR i.expires_at > $2)
       AND (a.payment_intent_id IS NOT NULL OR r.address_id IS NULL OR r.active_at > $3 OR r.read_at <= $4)
     ORDER BY r.read_at NULLS FIRST, a.created_at, a.id
     LIMIT $5`,
    [network, plan.expiredSince, plan.idleSince, plan.idleReadBefore, plan.limit],
  );
}

/** Records that `read` were read at `at`, and that `active` (among them) had new signatures then. */
export async function markSolanaReads(sql: Sql, read: readonly string[], active: ReadonlySet<string>, at: Date): Promise<void> {
  if (read.length === 0) return;
  await sql.query(
    `INSERT INTO solana_address_reads (address_id, read_at, active_at)
     SELECT a.id, $2, CASE WHEN a.id = ANY($3::uuid[]) THEN $2 ELSE a.created_at END FROM deposit_addresses a WHERE a.id = ANY($1::uuid[])
     ON CONFLICT (address_id) DO UPDATE SET read_at = excluded.read_at,
       active_at = CASE WHEN excluded.address_id = ANY($3::uuid[]) THEN excluded.read_at ELSE solana_address_reads.active_at END`,
    [read, at, [...active]],
  );
}

/** Where an account was last read: its newest signature read, and that signature's slot (null: recorded before slots were). */
export interface SignatureCursor {
  signature: string;
  slot: bigint | null;
}

/** The cursor of each of `accounts`; absent: never read. */
export async function signatureCursors(sql: Sql, network: string, accounts: readonly string[]): Promise<Map<string, SignatureCursor>> {
  const rows = await sql.query<{ account: string; last_signature: string; last_slot: string | null }>(
    'SELECT account, last_signature, last_slot::text FROM solana_signature_cursors WHERE network = $1 AND account = ANY($2::text[])',
    [network, accounts],
  );
  return new Map(rows.map((r) => [r.account, { signature: r.last_signature, slot: r.last_slot === null ? null : BigInt(r.last_slot) }]));
}

/**
 * Serializes the watchers of `network` until the transaction ends, then answers whether the cursors of
 * `accounts` are still `expected`: only then may what was read from them be recorded and the cursors moved.
 */
export async function claimSignatureCursors(tx: Sql, network: string, expected: ReadonlyMap<string, SignatureCursor>, accounts: readonly string[]): Promise<boolean> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('solana-watch:' || $1))", [network]);
  const now = await signatureCursors(tx, network, accounts);
  return accounts.every((account) => now.get(account)?.signature === expected.get(account)?.signature);
}

/** Moves cursors forward; one that would go to an older slot than it holds stays where it is. */
export async function moveSignatureCursors(tx: Sql, network: string, newest: ReadonlyMap<string, { signature: string; slot: bigint }>): Promise<void> {
  if (newest.size === 0) return;
  const entries = [...newest];
  await tx.query(
    `INSERT INTO solana_signature_cursors (network, account, last_signature, last_slot)
     SELECT $1, a, s, n FROM unnest($2::text[], $3::text[], $4::bigint[]) AS c(a, s, n)
     ON CONFLICT (network, account) DO UPDATE SET last_signature = excluded.last_signature, last_slot = excluded.last_slot, updated_at = now()
     WHERE solana_signature_cursors.last_slot IS NULL OR solana_signature_cursors.last_slot <= excluded.last_slot`,
    [network, entries.map(([a]) => a), entries.map(([, c]) => c.signature), entries.map(([, c]) => c.slot.toString())],
  );
}
