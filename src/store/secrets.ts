import { randomBytes } from 'node:crypto';
import type { Sql } from './database.js';

/** A secret shared by every instance: the first to ask creates it, the others read the same value. */
export async function sharedSecret(sql: Sql, name: string): Promise<Buffer> {
  await sql.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    randomBytes(32).toString('base64'),
  ]);
  const [row] = await sql.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [name]);
  return Buffer.from(row!.value, 'base64');
}
