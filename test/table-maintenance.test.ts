import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Database } from '../src/store/database.js';
import { findIntent } from '../src/store/payment-intents.js';
import { maintainTables } from '../src/store/table-maintenance.js';
import { maintainEmbeddedTables, startBackgroundWork } from '../src/workers/background.js';
import { startTestApp } from './support/app.js';
import { onPostgres, openTestDatabase, type TestDatabase } from './support/database.js';
import { planOf, statementOf } from './support/plans.js';
import { eventually } from './support/webhooks.js';

let t: TestDatabase;
let db: Database;
const org = randomUUID();
const tenant = { organizationId: org, mode: 'test' as const };
beforeAll(async () => {
  t = await openTestDatabase();
  db = t.db;
  await db.query(`INSERT INTO organizations (id, name, status, settings) VALUES ($1, 'maintained', 'active', '{}')`, [org]);
});
afterAll(() => t.close());

/** Writes in one transaction whose changes reach the statistics as it commits (PostgreSQL may wait a second). */
const counted = (statement: string, params: unknown[]) =>
  db.transaction(async (tx) => {
    await tx.query(statement, params);
    await tx.query('SELECT pg_stat_force_next_flush()');
  });

/** One tenant's intents, each created a millisecond before the last, as a busy tenant's are. */
const addIntents = (count: number, from: number) =>
  counted(
    `INSERT INTO payment_intents (id, organization_id, mode, ref_code, amount, currency, currencies, status, expires_at, created_at)
     SELECT gen_random_uuid(), $1, 'test', lpad(to_hex(g), 5, '0'), 1, 'USDC', '{USDC}', 'pending', now() + interval '1 hour', now() - g * interval '1 ms'
     FROM generate_series($2::int, $2::int + $3::int - 1) g`,
    [org, from, count],
  );

const tableStats = async () =>
  (await db.query<{ analyze_count: string; vacuum_count: string; n_mod_since_analyze: string }>(
    `SELECT analyze_count, vacuum_count, n_mod_since_analyze FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'payment_intents'`,
  ))[0]!;

async function planOfLookup(): Promise<string> {
  const [first] = await db.query<{ id: string }>('SELECT id FROM payment_intents ORDER BY created_at LIMIT 1');
  const id = first!.id;
  return planOf(db, await statementOf((sql) => findIntent(sql, tenant, id)), [id, org, 'test']);
}

describe('table maintenance: what autovacuum does, for the embedded database that runs none', () => {
  it("a table whose changes pass autovacuum's threshold is analyzed, and an intent is then looked up by its primary key", async () => {
    await addIntents(5000, 1);
    // Without statistics PGlite's planner walks the tenant's list index for one id (PostgreSQL's autovacuum may have analyzed already).
    if (!onPostgres) expect(await planOfLookup()).toContain('payment_intents_list_idx');
    const before = await tableStats();

    expect(await maintainTables(db)).toBeGreaterThanOrEqual(1);

    const after = await tableStats();
    expect(Number(after.analyze_count)).toBe(Number(before.analyze_count) + 1);
    expect(Number(after.n_mod_since_analyze)).toBe(0);
    expect(await planOfLookup()).toContain('Index Scan using payment_intents_pkey');
  });

  it('a table changed less than the threshold is left alone; one changed past it is analyzed again', async () => {
    await maintainTables(db);
    const before = await tableStats();
    await addIntents(100, 100_000);
    expect(await maintainTables(db)).toBe(0);
    await addIntents(600, 200_000);
    await maintainTables(db);
    expect(Number((await tableStats()).analyze_count)).toBe(Number(before.analyze_count) + 1);
  });

  it("a table whose dead rows pass autovacuum's threshold is vacuumed", async () => {
    const before = await tableStats();
    await counted(`DELETE FROM payment_intents WHERE created_at < now() - interval '3000 ms'`, []);
    await maintainTables(db);
    const after = await tableStats();
    expect(Number(after.vacuum_count)).toBe(Number(before.vacuum_count) + 1);
    expect(Number(after.analyze_count)).toBe(Number(before.analyze_count) + 1);
  });

  it.skipIf(onPostgres)("a server's background work on the embedded database runs it (PostgreSQL runs its own autovacuum)", async () => {
    const before = await tableStats();
    await addIntents(600, 300_000);
    const app = await startTestApp({}, t);
    const stop = await startBackgroundWork(app.ctx, pino({ level: 'silent' }));
    try {
      await eventually(tableStats, (stats) => Number(stats.analyze_count) === Number(before.analyze_count) + 1);
    } finally {
      await stop();
      await app.close();
    }
  });

  it('a pass says nothing, unless it held the database for long: then one warning says how long and how many tables', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    await addIntents(600, 400_000);
    await maintainEmbeddedTables(db, log);
    expect(lines).toEqual([]);
    await addIntents(700, 500_000);
    await maintainEmbeddedTables(db, log, 0);
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([{ level: 40, worker: 'table maintenance', tables: onPostgres ? expect.any(Number) : 1, ms: expect.any(Number) }]);
  });
});
