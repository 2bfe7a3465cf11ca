import type { KeyMode } from '../domain/api-keys.js';
import type { Sql } from './database.js';

export interface WebhookEndpointRow {
  organization_id: string;
  mode: KeyMode;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'organization_id, mode, url, enabled, secret, previous_secret, previous_secret_expires_at, created_at, updated_at';

/** Creates the endpoint with `secret`, or changes URL and switch of the existing one (whose secret stays). */
export async function upsertEndpoint(
  tx: Sql,
  endpoint: { organizationId: string; mode: KeyMode; url: string; enabled: boolean; secret: string },
): Promise<{ endpoint: WebhookEndpointRow; created: boolean }> {
  const [row] = await tx.query<WebhookEndpointRow & { created: boolean }>(
    `INSERT INTO webhook_endpoints (organization_id, mode, url, enabled, secret, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, now(), now())
     ON CONFLICT (organization_id, mode) DO UPDATE SET url = EXCLUDED.url, enabled = EXCLUDED.enabled, updated_at = now()
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [endpoint.organizationId, endpoint.mode, endpoint.url, endpoint.enabled, endpoint.secret],
  );
  const { created, ...rest } = row!;
  return { endpoint: rest, created };
}

export async function findEndpoint(sql: Sql, organizationId: string, mode: KeyMode): Promise<WebhookEndpointRow | null> {
  const [row] = await sql.query<WebhookEndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2`,
    [organizationId, mode],
  );
  return row ?? null;
}

export function listEndpoints(sql: Sql, organizationId: string): Promise<WebhookEndpointRow[]> {
  return sql.query<WebhookEndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 ORDER BY mode`, [
    organizationId,
  ]);
}

/** A new secret; the current one keeps signing beside it for `graceSeconds` (not at all when 0). */
export async function rotateSecret(
  tx: Sql,
  organizationId: string,
  mode: KeyMode,
  secret: string,
  graceSeconds: number,
): Promise<WebhookEndpointRow | null> {
  const [row] = await tx.query<WebhookEndpointRow>(
    `UPDATE webhook_endpoints
     SET previous_secret = CASE WHEN $4 > 0 THEN secret END,
         previous_secret_expires_at = CASE WHEN $4 > 0 THEN now() + make_interval(secs => $4) END,
         secret = $3, updated_at = now()
     WHERE organization_id = $1 AND mode = $2
     RETURNING ${COLUMNS}`,
    [organizationId, mode, secret, graceSeconds],
  );
  return row ?? null;
}
