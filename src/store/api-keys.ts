import type { Caller } from '../domain/access.js';
import type { KeyMode } from '../domain/api-keys.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  mode: KeyMode;
  key_prefix: string;
  scopes: string[];
  rate_limit_rps: number;
  expires_at: Date | null;
  revoked_at: Date | null;
  replaced_by: string | null;
  created_at: Date;
}

const COLUMNS =
  'id, organization_id, mode, key_prefix, scopes, rate_limit_rps, expires_at, revoked_at, replaced_by, created_at';

export async function insertApiKey(
  sql: Sql,
  key: Omit<ApiKeyRow, 'created_at' | 'revoked_at' | 'replaced_by'> & { key_hash: string },
): Promise<ApiKeyRow> {
  const [row] = await sql.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, organization_id, mode, key_hash, key_prefix, scopes, rate_limit_rps, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [key.id, key.organization_id, key.mode, key.key_hash, key.key_prefix, key.scopes, key.rate_limit_rps, key.expires_at],
  );
  return row!;
}

export async function findApiKey(sql: Sql, id: string, lock = false): Promise<ApiKeyRow | null> {
  const [row] = await sql.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return row ?? null;
}

/** Ends a key's life now; `replacedBy` records the key that took its place on rotation. */
export async function revokeApiKey(sql: Sql, id: string, replacedBy: string | null = null): Promise<ApiKeyRow> {
  const [row] = await sql.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, date_trunc('milliseconds', now())),
       replaced_by = COALESCE($2, replaced_by)
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, replacedBy],
  );
  return row!;
}

export function listApiKeys(sql: Sql, organizationId: string, page: PageRequest): Promise<Page<ApiKeyRow>> {
  return fetchPage<ApiKeyRow>(sql, `SELECT ${COLUMNS} FROM api_keys`, new Filter().add((p) => `organization_id = ${p}`, organizationId), page);
}

/** Hashes of the keys not revoked, of one organization or (null) of all: who may be worth a lookup. */
export async function unrevokedKeyHashes(sql: Sql, organizationId: string | null): Promise<{ key_hash: string; organization_id: string }[]> {
  return sql.query(
    `SELECT key_hash, organization_id FROM api_keys WHERE revoked_at IS NULL${organizationId === null ? '' : ' AND organization_id = $1'}`,
    organizationId === null ? [] : [organizationId],
  );
}

/** The one query on every authenticated request: the key and its organization's status, by hash. */
export async function findCaller(sql: Sql, keyHash: string): Promise<Caller | null> {
  const [row] = await sql.query<{
    id: string;
    organization_id: string;
    status: Caller['organizationStatus'];
    settings: Caller['organizationSettings'];
    mode: KeyMode;
    scopes: string[];
    expires_at: Date | null;
    revoked_at: Date | null;
    rate_limit_rps: number;
  }>(
    `SELECT k.id, k.organization_id, o.status, o.settings, k.mode, k.scopes, k.expires_at, k.revoked_at, k.rate_limit_rps
     FROM api_keys k JOIN organizations o ON o.id = k.organization_id
     WHERE k.key_hash = $1`,
    [keyHash],
  );
  if (!row) return null;
  return {
    keyId: row.id,
    organizationId: row.organization_id,
    organizationStatus: row.status,
    organizationSettings: row.settings,
    mode: row.mode,
    scopes: row.scopes,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    rateLimitRps: row.rate_limit_rps,
  };
}
