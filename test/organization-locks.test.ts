import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Sql } from '../src/store/database.js';
import { OperatorService } from '../src/use-cases/operator.js';
import { startTestApp, type TestApp } from './support/app.js';
import { onPostgres } from './support/database.js';

/**
 * Which locks an operator's change to an organization waits for (issue 34, item 13). Every insert into a table
 * that references the organization holds FOR KEY SHARE on its row until it commits; under load there always is
 * one, so a change that waits for them waits for the load.
 */
let t: TestApp;
beforeAll(async () => {
  if (onPostgres) t = await startTestApp();
});
afterAll(() => t?.close());

/** The operator's verbs on a database whose transactions give up on a lock after 2 s (55P03) instead of waiting. */
function impatientOperator(db: Database): OperatorService {
  const impatient: Database = {
    ...db,
    transaction: (work) =>
      db.transaction(async (tx) => {
        await tx.query("SET LOCAL lock_timeout = '2s'");
        return work(tx);
      }),
  };
  return new OperatorService(impatient, t.ctx.catalog, t.ctx.clock);
}

/** Runs `hold` in a transaction that stays open until `during` has settled; returns what `during` returned or threw. */
async function whileOpen(hold: (tx: Sql) => Promise<unknown>, during: () => Promise<unknown>) {
  let outcome: PromiseSettledResult<unknown> | undefined;
  await t.db.transaction(async (tx) => {
    await hold(tx);
    [outcome] = await Promise.allSettled([during()]);
  });
  return outcome!;
}

describe.runIf(onPostgres)('operator changes to an organization under load (PostgreSQL)', () => {
  it('a suspension does not wait for an open transaction that inserted a row referencing the organization', async () => {
    const org = await t.ctx.operator.createOrganization({ name: 'Busy', status: 'active' });
    const outcome = await whileOpen(
      // An API key, as any of the referencing tables: its foreign key check holds FOR KEY SHARE on the organization.
      (tx) =>
        tx.query(
          `INSERT INTO api_keys (id, organization_id, mode, key_hash, key_prefix, scopes, rate_limit_rps)
           VALUES ($1, $2, 'test', $3, 'sk_test_x', '{}', 1)`,
          [randomUUID(), org.id, randomBytes(32).toString('hex')],
        ),
      () => impatientOperator(t.db).updateOrganization(org.id, { status: 'suspended' }),
    );
    expect(outcome).toMatchObject({ status: 'fulfilled', value: { status: 'suspended' } });
  });

  it('two changes to one organization still take turns: a change waits for another one in progress', async () => {
    const org = await t.ctx.operator.createOrganization({ name: 'Contended', status: 'active' });
    const outcome = await whileOpen(
      // Another change, written and not yet committed.
      (tx) => tx.query("UPDATE organizations SET name = 'Renamed' WHERE id = $1", [org.id]),
      () => impatientOperator(t.db).updateOrganization(org.id, { settings: { intent_ttl_seconds: 60 } }),
    );
    expect(outcome).toMatchObject({ status: 'rejected', reason: { code: '55P03' } });
  });
});
