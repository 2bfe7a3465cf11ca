import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/store/database.js';
import { openPglite } from '../src/store/pglite.js';
import { PreparedStatements } from '../src/store/pglite-statements.js';
import { pgliteTemplate } from './support/database.js';

// The embedded database's own statement path (src/store/pglite-statements.ts), whichever database the suite runs on;
// both databases here start from the run's empty one rather than running initdb again.
let db: Database;
beforeAll(async () => {
  db = await openPglite(undefined, pgliteTemplate('empty'));
  await db.exec(`CREATE TABLE things (id int PRIMARY KEY, name text UNIQUE, amount numeric, at timestamptz, data jsonb, tags text[])`);
});
afterAll(() => db.close());

const countOf = async (text: string) =>
  (await db.query<{ runs: number; copies: number }>(
    `SELECT coalesce(sum(generic_plans + custom_plans), 0)::int AS runs, count(*)::int AS copies
       FROM pg_prepared_statements WHERE statement = $1`,
    [text],
  ))[0]!;

describe('PGlite statements', () => {
  it('parses a text once per session and runs it again under the same name', async () => {
    const text = 'SELECT $1::int + 1 AS next';
    expect(await db.query(text, [1])).toEqual([{ next: 2 }]);
    expect(await db.query(text, [41])).toEqual([{ next: 42 }]);
    expect(await countOf(text)).toEqual({ runs: 2, copies: 1 });
  });

  it("returns the rows PGlite's own query returns, value for value", async () => {
    const text = `SELECT $1::int AS i, $2::bigint AS big, $3::numeric AS amount, $4::timestamptz AS at, $5::jsonb AS data,
                         $6::json AS raw, $7::text[] AS tags, $8::uuid AS id, $9::boolean AS yes, $10::text AS missing,
                         $11::bytea AS bytes`;
    const params = [7, '9007199254740993', '0.000000000000000001', new Date('2026-01-02T03:04:05.678Z'), { a: [1, 'x'] },
      '{"b": 2}', ['a', 'b"c', 'd,e'], '0f8f5d3e-3b8c-4c43-9e43-0a4c5e1b2c3d', true, null, new Uint8Array([0, 255])];
    const reference = await PGlite.create({ loadDataDir: pgliteTemplate('empty') });
    try {
      const expected = (await reference.query(text, params)).rows;
      expect(await new PreparedStatements(reference).query(text, params)).toEqual(expected);
      expect(await db.query(text, params)).toEqual(expected);
    } finally {
      await reference.close();
    }
  });

  it("throws PostgreSQL's error with its code and constraint, and the next statement runs", async () => {
    await db.query('INSERT INTO things (id, name) VALUES ($1, $2)', [1, 'one']);
    const error = await db.query('INSERT INTO things (id, name) VALUES ($1, $2)', [2, 'one']).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: '23505', constraint: 'things_name_key' });
    expect(await db.query('SELECT name FROM things WHERE id = $1', [1])).toEqual([{ name: 'one' }]);
  });

  it('a text that does not parse is not kept, and the session goes on', async () => {
    await expect(db.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    expect(await countOf('SELEC 1')).toEqual({ runs: 0, copies: 0 });
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('a transaction sees its own writes and takes them back when it throws', async () => {
    const failure = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO things (id, name) VALUES ($1, $2)', [10, 'ten']);
        expect(await tx.query('SELECT name FROM things WHERE id = $1', [10])).toEqual([{ name: 'ten' }]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.query('SELECT name FROM things WHERE id = $1', [10])).toEqual([]);
  });

  it("a statement outside a transaction waits for it to end instead of running inside it", async () => {
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO things (id, name) VALUES ($1, $2)', [20, 'twenty']);
        inserted();
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error('rolled back');
      })
      .catch(() => 'rolled back');
    await insertedOnce;
    // Run inside the open transaction, this would see the uncommitted row.
    expect(await db.query('SELECT count(*)::int AS n FROM things WHERE id = $1', [20])).toEqual([{ n: 0 }]);
    expect(await transaction).toBe('rolled back');
  });

  it('refuses a statement on a transaction that has ended', async () => {
    let ended: Parameters<Parameters<Database['transaction']>[0]>[0] | undefined;
    await db.transaction(async (tx) => {
      ended = tx;
    });
    await expect(ended!.query('SELECT 1')).rejects.toThrow('Transaction is closed');
  });

  it('a NOTIFY sent by a statement reaches the listeners of its channel', async () => {
    const heard: string[] = [];
    const stop = await db.listen('things_changed', (payload) => heard.push(payload));
    try {
      await db.query("SELECT pg_notify('things_changed', $1)", ['from a statement']);
      await db.transaction((tx) => tx.query("SELECT pg_notify('things_changed', $1)", ['from a transaction']));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(heard).toEqual(['from a statement', 'from a transaction']);
    } finally {
      await stop();
    }
  });
});
