import type { OrganizationSettings, OrganizationStatus } from '../domain/organizations.js';
import type { Sql } from './database.js';
import { fetchPage, Filter, type Page, type PageRequest } from './pagination.js';

export interface OrganizationRow {
  id: string;
  name: string;
  status: OrganizationStatus;
  settings: OrganizationSettings;
  created_at: Date;
}

const COLUMNS = 'id, name, status, settings, created_at';

export async function insertOrganization(sql: Sql, org: Omit<OrganizationRow, 'created_at'>): Promise<OrganizationRow> {
  const [row] = await sql.query<OrganizationRow>(
    `INSERT INTO organizations (id, name, status, settings) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [org.id, org.name, org.status, JSON.stringify(org.settings)],
  );
  return row!;
}

/**
 * `lock` serializes changes to the organization (a read-modify-write of its settings). FOR NO KEY UPDATE, not FOR
 * UPDATE: every insert into the tables that reference the organization holds FOR KEY SHARE on its row until it
 * commits, and FOR UPDATE waits behind all of them (an operator's suspension took 12–15 s under load); a change
 * that leaves the id alone conflicts only with other changes.
 */
export async function findOrganization(sql: Sql, id: string, lock = false): Promise<OrganizationRow | null> {
  const [row] = await sql.query<OrganizationRow>(
    `SELECT ${COLUMNS} FROM organizations WHERE id = $1${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [id],
  );
  return row ?? null;
}

export async function updateOrganization(
  sql: Sql,
  id: string,
  changes: Pick<OrganizationRow, 'name' | 'status' | 'settings'>,
): Promise<OrganizationRow> {
  const [row] = await sql.query<OrganizationRow>(
    `UPDATE organizations SET name = $2, status = $3, settings = $4, updated_at = date_trunc('milliseconds', now())
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, changes.name, changes.status, JSON.stringify(changes.settings)],
  );
  return row!;
}

export function listOrganizations(sql: Sql, page: PageRequest): Promise<Page<OrganizationRow>> {
  return fetchPage<OrganizationRow>(sql, `SELECT ${COLUMNS} FROM organizations`, new Filter(), page);
}

export async function anyOrganizationExists(sql: Sql): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM organizations LIMIT 1');
  return rows.length > 0;
}
