import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';
import type { Tenant } from '../domain/tenancy.js';

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

/** A standalone address (intent addresses are inserted with their intent). */
export type NewAddress = Omit<AddressRow, 'payment_intent_id'>;

export async function insertAddress(tx: Sql, address: NewAddress): Promise<AddressRow> {
  const [row] = await tx.query<AddressRow>(
    `INSERT INTO deposit_addresses (id, organization_id, mode, profile_id, external_ref, asset, network, address, memo, label, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [
      address.id,
      address.organization_id,
      address.mode,
      address.profile_id,
      address.external_ref,
      address.asset,
      address.network,
      address.address,
      address.memo,
      address.label,
      address.created_at,
    ],
  );
  return row!;
}

export async function findAddress(sql: Sql, tenant: Tenant, id: string, lock = false): Promise<AddressRow | null> {
  const [row] = await sql.query<AddressRow>(
    `SELECT ${COLUMNS} FROM deposit_addresses WHERE id = $1 AND organization_id = $2 AND mode = $3${lock ? ' FOR UPDATE' : ''}`,
    [id, tenant.organizationId, tenant.mode],
  );
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
