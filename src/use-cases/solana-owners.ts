import type { Catalog } from '../domain/catalog.js';
import { DomainError } from '../domain/errors.js';
import { checkOwnerKeys, type OwnerKeyInput } from '../providers/chains/solana/owner-keys.js';
import type { Database } from '../store/database.js';
import { freeOwners, importOwners } from '../store/solana-owners.js';

export interface OwnerImport {
  network: string;
  /** Keys in the request, a key given twice counted once. */
  received: number;
  /** Keys new to the pool; the others were imported before and are left as they were. */
  imported: number;
  /** Unallocated keys of the network after the import. */
  free: number;
}

/** Adds the operator's owner keys of a Solana network to its pool; all or none (one bad entry refuses the request). */
export async function importOwnerKeys(db: Database, catalog: Catalog, network: string, entries: readonly OwnerKeyInput[]): Promise<OwnerImport> {
  if (catalog.network(network)?.address_format !== 'solana') {
    throw new DomainError('invalid_request', `${network} is not a Solana network of the catalog.`, 'network');
  }
  const checked = await checkOwnerKeys(entries);
  if ('problems' in checked) throw new DomainError('invalid_request', `Nothing was imported: ${checked.problems.join('; ')}.`, 'keys');
  const imported = await importOwners(db, network, checked.keys);
  return { network, received: checked.keys.length, imported, free: (await freeOwners(db)).get(network) ?? 0 };
}
