import { DomainError } from '../domain/errors.js';
import type { Database, Sql } from './database.js';

/** The key families whose addresses derive from an xpub, each with its own counter (migration 009). */
export type KeyFamily = 'evm' | 'tron';

/** The xpub a family derives from, as the database knows it: by fingerprint, never the key itself. */
export interface FamilyXpub {
  family: KeyFamily;
  fingerprint: string;
  derive: (index: number) => string;
}

export type ClaimHow = 'first_use' | 'declared' | 'adopted';

export interface XpubClaim {
  family: KeyFamily;
  fingerprint: string;
  how: ClaimHow;
  start_index: number;
  claimed_at: Date;
  /** The next index this database hands out. */
  next_index: number;
}

/** What the operator runs to let this database hand out the family's addresses (docs/live-evm.md, "One xpub, one database"). */
export const claimCommand = (family: KeyFamily) => `connect-payments xpub claim ${family} --start-index <N> (or --first-use)`;

/**
 * Whether this database may hand out `xpub`'s addresses: it claimed it, or it handed them out before claims
 * existed (its lowest recorded index derives from this xpub, and no claim of the family names another): then it
 * adopts the claim. Otherwise another database may have handed them out, and nothing is: the error names what the
 * operator runs.
 */
async function checkClaim(tx: Sql, xpub: FamilyXpub): Promise<void> {
  const claims = await tx.query<{ fingerprint: string }>('SELECT fingerprint FROM xpub_claims WHERE family = $1', [xpub.family]);
  if (claims.some((c) => c.fingerprint === xpub.fingerprint)) return;
  const [first] = await tx.query<{ derivation_index: string; address: string }>(
    'SELECT derivation_index::text, address FROM derived_addresses WHERE family = $1 ORDER BY derivation_index LIMIT 1',
    [xpub.family],
  );
  if (claims.length === 0 && first && xpub.derive(Number(first.derivation_index)) === first.address) {
    await tx.query("INSERT INTO xpub_claims (family, fingerprint, how, start_index) VALUES ($1, $2, 'adopted', 0) ON CONFLICT DO NOTHING", [xpub.family, xpub.fingerprint]);
    return;
  }
  throw new DomainError(
    'provider_unavailable',
    `Live ${xpub.family.toUpperCase()} deposit addresses are held back: this database has not claimed the configured xpub (fingerprint ${xpub.fingerprint.slice(0, 16)}), ` +
      `and another database may already have handed out its addresses. The operator runs ${claimCommand(xpub.family)}.`,
  );
}

/**
 * Takes the next derivation index of the family and records the address derived from it, in one transaction:
 * the counter row's lock serializes every instance, so no index is ever handed out twice. An index whose
 * address is then not used (the request failed later) is simply skipped. Only from an xpub this database claimed.
 */
export function allocateDerivedAddress(db: Database, xpub: FamilyXpub, network: string): Promise<{ index: number; address: string }> {
  return db.transaction(async (tx) => {
    await checkClaim(tx, xpub);
    const [row] = await tx.query<{ index: string }>(
      `INSERT INTO derivation_counters (family, next_index) VALUES ($1, 1)
       ON CONFLICT (family) DO UPDATE SET next_index = derivation_counters.next_index + 1
       RETURNING (next_index - 1)::text AS index`,
      [xpub.family],
    );
    const index = Number(row!.index);
    const address = xpub.derive(index);
    await tx.query('INSERT INTO derived_addresses (family, derivation_index, address, network) VALUES ($1, $2, $3, $4)', [xpub.family, index, address, network]);
    return { index, address };
  });
}

/** Moves the family's next index up to `index` (never down); answers where it is now. */
async function raiseNextIndex(tx: Sql, family: KeyFamily, index: number): Promise<number> {
  const [row] = await tx.query<{ next_index: string }>(
    `INSERT INTO derivation_counters (family, next_index) VALUES ($1, $2)
     ON CONFLICT (family) DO UPDATE SET next_index = GREATEST(derivation_counters.next_index, excluded.next_index)
     RETURNING next_index::text`,
    [family, index],
  );
  return Number(row!.next_index);
}

/**
 * The operator's claim: this database hands out `xpub`'s addresses from `startIndex` on (or later, if it is
 * past that already). Claimed again, the claim stays and the next index only moves up: this is also how a
 * restored backup is moved past what the newer database handed out.
 */
export function claimXpub(db: Database, xpub: Omit<FamilyXpub, 'derive'>, startIndex: number, how: Exclude<ClaimHow, 'adopted'>): Promise<XpubClaim> {
  return db.transaction(async (tx) => {
    await tx.query('INSERT INTO xpub_claims (family, fingerprint, how, start_index) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [xpub.family, xpub.fingerprint, how, startIndex]);
    await raiseNextIndex(tx, xpub.family, startIndex);
    return (await xpubClaims(tx, xpub.family)).find((c) => c.fingerprint === xpub.fingerprint)!;
  });
}

/** Moves the family's next index past `usedIndex`, which the chain shows as used; answers the next index. */
export const skipPastUsed = (db: Database, family: KeyFamily, usedIndex: number): Promise<number> => db.transaction((tx) => raiseNextIndex(tx, family, usedIndex + 1));

/** The family's next index (0 before any was handed out). */
export async function nextDerivationIndex(sql: Sql, family: KeyFamily): Promise<number> {
  const [row] = await sql.query<{ next_index: string }>('SELECT next_index::text FROM derivation_counters WHERE family = $1', [family]);
  return row ? Number(row.next_index) : 0;
}

/** The family's claims, each with the family's next index. */
export async function xpubClaims(sql: Sql, family: KeyFamily): Promise<XpubClaim[]> {
  const rows = await sql.query<{ fingerprint: string; how: ClaimHow; start_index: string; claimed_at: Date }>(
    'SELECT fingerprint, how, start_index::text, claimed_at FROM xpub_claims WHERE family = $1 ORDER BY claimed_at',
    [family],
  );
  const next = await nextDerivationIndex(sql, family);
  return rows.map((r) => ({ family, fingerprint: r.fingerprint, how: r.how, start_index: Number(r.start_index), claimed_at: r.claimed_at, next_index: next }));
}
