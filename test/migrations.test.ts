import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/domain/catalog.js';
import { systemClock } from '../src/domain/clock.js';
import { migrate } from '../src/store/migrate.js';
import { openPostgres } from '../src/store/postgres.js';
import { OperatorService } from '../src/use-cases/operator.js';
import { onPostgres } from './support/database.js';

/** Two "instances" (pools) on one fresh schema, as when several servers start at once. */
async function withFreshSchema(work: (a: ReturnType<typeof openPostgres>, b: ReturnType<typeof openPostgres>) => Promise<void>) {
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `start_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const a = openPostgres({ connectionString: url, schema });
  const b = openPostgres({ connectionString: url, schema });
  try {
    await work(a, b);
  } finally {
    await a.close();
    await b.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

describe.runIf(onPostgres)('several instances starting at once', () => {
  it('migrations apply once, whichever instance gets the advisory lock first', async () => {
    await withFreshSchema(async (a, b) => {
      const [first, second] = await Promise.all([migrate(a), migrate(b)]);
      const applied = [...first, ...second].sort();
      const files = fs.readdirSync(new URL('../src/store/migrations/', import.meta.url)).filter((f) => f.endsWith('.sql')).sort();
      expect(applied).toEqual(files);
      expect(await migrate(a)).toEqual([]);
    });
  });

  it('an empty database gets exactly one demo organization', async () => {
    await withFreshSchema(async (a, b) => {
      await migrate(a);
      const catalog = Catalog.load();
      const results = await Promise.all([new OperatorService(a, catalog, systemClock).bootstrapDemo(), new OperatorService(b, catalog, systemClock).bootstrapDemo()]);
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      const [{ n }] = (await a.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations')) as [{ n: number }];
      expect(n).toBe(1);
    });
  });
});
