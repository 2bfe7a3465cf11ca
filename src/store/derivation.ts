import type { Database } from './database.js';

/** The key families whose addresses derive from an xpub, each with its own counter (migration 009). */
export type KeyFamily = 'evm' | 'tron';

/**
 * Takes the next derivation index of `family` and records the address derived from it, in one transaction:
 * the counter row's lock serializes every instance, so no index is ever handed out twice. An index whose
 * address is then not used (the request failed later) is simply skipped.
 */
export function allocateDerivedAddress(db: Database, family: KeyFamily, network: string, derive: (index: number) => string): Promise<{ index: number; address: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ index: string }>(
      `INSERT INTO derivation_counters (family, next_index) VALUES ($1, 1)
       ON CONFLICT (family) DO UPDATE SET next_index = derivation_counters.next_index + 1
       RETURNING (next_index - 1)::text AS index`,
      [family],
    );
    const index = Number(row!.index);
    const address = derive(index);
    await tx.query('INSERT INTO derived_addresses (family, derivation_index, address, network) VALUES ($1, $2, $3, $4)', [family, index, address, network]);
    return { index, address };
  });
}
