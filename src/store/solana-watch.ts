import type { Sql } from './database.js';
import type { WatchedAddress } from './chain-watch.js';

/**
 * The live addresses of `network` that can still be paid: standalone ones, and those of intents that expire
 * after `expiredSince` (open ones, and closed ones for a while, for late payments). Each is read on every
 * tick, so this is what bounds the watcher's RPC calls.
 */
export function watchedSolanaAddresses(sql: Sql, network: string, expiredSince: Date): Promise<WatchedAddress[]> {
  return sql.query<WatchedAddress>(
    `SELECT a.id, a.organization_id, a.mode, a.asset, a.address FROM deposit_addresses a
     LEFT JOIN payment_intents i ON i.id = a.payment_intent_id
     WHERE a.mode = 'live' AND a.network = $1 AND (a.payment_intent_id IS NULL OR i.expires_at > $2)
     ORDER BY a.created_at, a.id`,
    [network, expiredSince],
  );
}

/** The newest signature read of each of `accounts`; absent: never read. */
export async function signatureCursors(sql: Sql, network: string, accounts: readonly string[]): Promise<Map<string, string>> {
  const rows = await sql.query<{ account: string; last_signature: string }>(
    'SELECT account, last_signature FROM solana_signature_cursors WHERE network = $1 AND account = ANY($2::text[])',
    [network, accounts],
  );
  return new Map(rows.map((r) => [r.account, r.last_signature]));
}

/**
 * Serializes the watchers of `network` until the transaction ends, then answers whether the cursors of
 * `accounts` are still `expected`: only then may what was read from them be recorded and the cursors moved.
 */
export async function claimSignatureCursors(tx: Sql, network: string, expected: ReadonlyMap<string, string>, accounts: readonly string[]): Promise<boolean> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('solana-watch:' || $1))", [network]);
  const now = await signatureCursors(tx, network, accounts);
  return accounts.every((account) => now.get(account) === expected.get(account));
}

export async function moveSignatureCursors(tx: Sql, network: string, newest: ReadonlyMap<string, string>): Promise<void> {
  if (newest.size === 0) return;
  await tx.query(
    `INSERT INTO solana_signature_cursors (network, account, last_signature) SELECT $1, a, s FROM unnest($2::text[], $3::text[]) AS c(a, s)
     ON CONFLICT (network, account) DO UPDATE SET last_signature = excluded.last_signature, updated_at = now()`,
    [network, [...newest.keys()], [...newest.values()]],
  );
}
