import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../domain/api-keys.js';
import type { ExternalRef } from '../domain/identifiers.js';
import type { Sql } from './database.js';
import type { Tenant } from './tenancy.js';

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
