import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../domain/api-keys.js';
import type { ExternalRef } from '../domain/identifiers.js';
import type { Sql } from './database.js';
import type { Tenant } from '../domain/tenancy.js';

/**
 * The end user's profile for an external_ref, created on first use. Concurrent first uses race on the
 * unique (organization, mode, external_ref): the loser's insert waits for the winner, does nothing, and
 * then reads the winner's row, so exactly one profile ever exists.
 */
export async function ensureProfile(tx: Sql, organizationId: string, mode: KeyMode, externalRef: ExternalRef): Promise<string> {
  const [inserted] = await tx.query<{ id: string }>(
    `INSERT INTO profiles (id, organization_id, mode, external_ref) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id, mode, external_ref) DO NOTHING RETURNING id`,
    [randomUUID(), organizationId, mode, externalRef],
  );
  if (inserted) return inserted.id;
  const id = await findProfileId(tx, organizationId, mode, externalRef);
  return id!;
}

export async function findProfileId(sql: Sql, organizationId: string, mode: KeyMode, externalRef: ExternalRef): Promise<string | null> {
  const [row] = await sql.query<{ id: string }>(
    'SELECT id FROM profiles WHERE organization_id = $1 AND mode = $2 AND external_ref = $3',
    [organizationId, mode, externalRef],
  );
  return row?.id ?? null;
}

/**
 * A list's `external_ref` filter as a profile id: undefined when no filter was given, null when the ref was
 * never used (the list is then empty without a query).
 */
export async function profileFilter(sql: Sql, tenant: Tenant, externalRef: ExternalRef | undefined): Promise<string | null | undefined> {
  if (externalRef === undefined) return undefined;
  return findProfileId(sql, tenant.organizationId, tenant.mode, externalRef);
}

export interface StoredProfile {
  id: string;
  organization_id: string;
  mode: KeyMode;
  external_ref: string;
}

/** Profiles in id order after `afterId` (null: from the first): a walk over every profile, a page at a time. */
export function profilesAfter(sql: Sql, afterId: string | null, limit: number): Promise<StoredProfile[]> {
  return sql.query<StoredProfile>(
    `SELECT id, organization_id, mode, external_ref FROM profiles WHERE $1::uuid IS NULL OR id > $1::uuid ORDER BY id LIMIT ${limit}`,
    [afterId],
  );
}

/** For each (organization, mode, ref) asked, the id of the profile holding exactly that ref, or null. */
export async function profilesByRef(sql: Sql, wanted: readonly { organization_id: string; mode: KeyMode; external_ref: string }[]): Promise<(string | null)[]> {
  if (wanted.length === 0) return [];
  const rows = await sql.query<{ i: number; id: string }>(
    `SELECT w.i, p.id FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS w(organization_id, mode, external_ref, i)
     JOIN profiles p ON p.organization_id = w.organization_id AND p.mode = w.mode AND p.external_ref = w.external_ref`,
    [wanted.map((w) => w.organization_id), wanted.map((w) => w.mode), wanted.map((w) => w.external_ref)],
  );
  const found = new Map(rows.map((r) => [Number(r.i), r.id]));
  return wanted.map((_, i) => found.get(i + 1) ?? null);
}
