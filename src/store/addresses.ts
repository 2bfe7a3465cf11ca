import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from './tenancy.js';

export interface AddressRow {
  id: string;
  organization_id: string;
  mode: Tenant['mode'];
  profile_id: string | null;
  external_ref: string | null;
  payment_intent_id: string | null;
  asset: string;
  network: string;
  address: string;
  memo: string | null;
  label: string | null;
  created_at: Date;
}

const COLUMNS =
  'id, organization_id, mode, profile_id, external_ref, payment_intent_id, asset, network, address, memo, label, created_at';

export type NewAddress = Omit<AddressRow, 'created_at'> & { position: number };

export async function insertAddresses(tx: Sql, addresses: NewAddress[]): Promise<AddressRow[]> {
  const fields = ['id', 'organization_id', 'mode', 'profile_id', 'external_ref', 'payment_intent_id', 'position', 'asset', 'network', 'address', 'memo', 'label'] as const;
  const params: unknown[] = [];
  const tuples = addresses.map((address) => {
    const placeholders = fields.map((field) => {
      params.push(address[field]);
      return `$${params.length}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return tx.query<AddressRow>(
    `INSERT INTO deposit_addresses (${fields.join(', ')}) VALUES ${tuples.join(', ')} RETURNING ${COLUMNS}`,
    params,
  );
}

export async function findAddress(sql: Sql, tenant: Tenant, id: string, lock = false): Promise<AddressRow | null> {
  const [row] = await sql.query<AddressRow>(
    `SELECT ${COLUMNS} FROM deposit_addresses WHERE id = $1 AND organization_id = $2 AND mode = $3${lock ? ' FOR UPDATE' : ''}`,
    [id, tenant.organizationId, tenant.mode],
  );
  return row ?? null;
}

/** By id alone, for deposit credits: the address is how an incoming deposit finds its tenant. */
export async function findAddressById(sql: Sql, id: string): Promise<AddressRow | null> {
  const [row] = await sql.query<AddressRow>(`SELECT ${COLUMNS} FROM deposit_addresses WHERE id = $1`, [id]);
  return row ?? null;
}

export interface AddressFilters {
  profileId?: string;
  asset?: string;
  network?: string;
}

/** Standalone addresses (POST /addresses); intent addresses are listed with their intent. */
export function listAddresses(sql: Sql, tenant: Tenant, filters: AddressFilters, page: PageRequest): Promise<Page<AddressRow>> {
  const filter = Filter.tenant(tenant)
    .raw('payment_intent_id IS NULL')
    .optional((p) => `profile_id = ${p}`, filters.profileId)
    .optional((p) => `asset = ${p}`, filters.asset)
    .optional((p) => `network = ${p}`, filters.network);
  return fetchPage<AddressRow>(sql, `SELECT ${COLUMNS} FROM deposit_addresses`, filter, page);
}
