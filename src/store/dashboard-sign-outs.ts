import type { Sql } from './database.js';

/** The session is over: its cookie is refused from now on. Rows of sessions expired anyway go with the same statement. */
export async function recordSignOut(sql: Sql, session: { id: string; expiresAt: Date }, now: Date): Promise<void> {
  await sql.query(
    `WITH purged AS (DELETE FROM dashboard_sign_outs WHERE expires_at <= $3)
     INSERT INTO dashboard_sign_outs (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING`,
    [session.id, session.expiresAt, now],
  );
}

export async function isSignedOut(sql: Sql, sessionId: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM dashboard_sign_outs WHERE session_id = $1', [sessionId]);
  return rows.length > 0;
}
