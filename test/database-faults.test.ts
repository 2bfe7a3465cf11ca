import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { isDatabaseUnavailable } from '../src/store/database.js';
import { migrate } from '../src/store/migrate.js';
import { openPostgres } from '../src/store/postgres.js';
import { startBackgroundWork } from '../src/workers/background.js';
import { startTestApp, type TestApp } from './support/app.js';
import { onPostgres, openTestDatabase } from './support/database.js';
import { createTenant, postIntent, postSimulation } from './support/partner.js';
import { privatePostgresUnavailable, startPrivatePostgres } from './support/private-postgres.js';

/**
 * Connections lost under the service's feet (issue 34, item 12): a terminated backend must never end the process.
 * An 'error' event nobody listens to is an uncaught exception; the monitor sees it before Vitest reports it.
 */
const crashes: Error[] = [];
const noteCrash = (error: Error) => crashes.push(error);
beforeAll(() => void process.on('uncaughtExceptionMonitor', noteCrash));
afterAll(() => void process.off('uncaughtExceptionMonitor', noteCrash));
beforeEach(() => void crashes.splice(0));

let admin: pg.Client;
beforeAll(async () => {
  if (!onPostgres) return;
  admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
});
afterAll(() => admin?.end());

/** The pool's connections are named after the test file's schema (src/store/postgres.ts). */
const schemaOf = (t: TestApp | { db: unknown }) => ((t.db as { pool: pg.Pool }).pool.options as { application_name: string }).application_name;

/** Terminates `pid` and waits until its backend has exited (the client hears of it on its own socket). */
async function terminate(pid: number): Promise<void> {
  await admin.query('SELECT pg_terminate_backend($1, 5000)', [pid]);
}

/** Terminates this pool's backends that are running a statement or sit in a transaction; returns how many. */
async function terminateBusy(applicationName: string): Promise<number> {
  const [row] = (
    await admin.query<{ hit: string }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS hit FROM pg_stat_activity
       WHERE application_name = $1 AND state IN ('active', 'idle in transaction') AND pid <> pg_backend_pid()`,
      [applicationName],
    )
  ).rows;
  return Number(row!.hit);
}

interface Answer {
  status: number;
  body: string;
  retryAfter?: string | string[] | number;
}
const answerOf = (res: LightMyRequestResponse): Answer => ({ status: res.statusCode, body: res.body, retryAfter: res.headers['retry-after'] });

/** What a fault may turn an answer into: the success, or 503 service_unavailable in the error envelope, to retry in 1 s. */
const unexpectedOf = (answers: Answer[], success: number) =>
  answers.filter((a) => a.status !== success && !(a.status === 503 && a.body.includes('"code":"service_unavailable"') && a.retryAfter === '1'));

/**
 * One partner's round: an intent created (one statement) and paid in the sandbox (a transaction that writes the
 * ledger and events). Returns the creation's answer, under its Idempotency-Key, and the payment's.
 */
async function partnerRound(t: TestApp, key: string): Promise<{ idempotencyKey: string; created: Answer; paid: Answer | null }> {
  const idempotencyKey = randomUUID();
  const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] }, idempotencyKey);
  const created = answerOf(res);
  if (res.statusCode !== 201) return { idempotencyKey, created, paid: null };
  const payment = await postSimulation(t, key, (res.json() as { id: string }).id);
  return { idempotencyKey, created, paid: answerOf(payment) };
}

describe.runIf(onPostgres)('a lost database connection on PostgreSQL', () => {
  it('a backend terminated while its transaction waits between statements: the process lives on, the work runs again on a new connection and commits', async () => {
    const testDb = await openTestDatabase();
    try {
      const pids: number[] = [];
      const committed = await testDb.db.transaction(async (tx) => {
        const [{ pid }] = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
        pids.push(pid);
        if (pids.length === 1) await terminate(pid);
        await tx.query('CREATE TABLE fault_marker (pid integer)');
        await tx.query('INSERT INTO fault_marker VALUES ($1)', [pid]);
        return pid;
      });
      expect(crashes).toEqual([]);
      expect(pids).toHaveLength(2);
      expect(committed).toBe(pids[1]);
      expect(await testDb.db.query('SELECT pid FROM fault_marker')).toEqual([{ pid: pids[1] }]);
    } finally {
      await testDb.close();
    }
  });

  it('a backend terminated during a statement outside a transaction: the statement fails as unavailable, the process lives on and the pool serves the next one', async () => {
    const testDb = await openTestDatabase();
    try {
      const failure = testDb.db.query('SELECT pg_sleep(30)').then(
        () => null,
        (error: unknown) => error,
      );
      let hit = 0;
      while (hit === 0) hit = await terminateBusy(schemaOf(testDb));
      expect(isDatabaseUnavailable(await failure)).toBe(true);
      expect(crashes).toEqual([]);
      expect(await testDb.db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await testDb.close();
    }
  });

  it('backends terminated under load: every creation and payment is answered as usual or 503 service_unavailable (never 500), the process lives on, and a creation answered 503 and retried with its Idempotency-Key exists once', async () => {
    const t = await startTestApp();
    try {
      const tenant = await createTenant(t);
      const creations = new Map<string, Answer>();
      const payments: Answer[] = [];
      let loading = true;
      let hits = 0;
      const killer = (async () => {
        while (loading) hits += await terminateBusy(schemaOf(t));
      })();
      const partner = async () => {
        for (let i = 0; i < 5; i++) {
          const round = await partnerRound(t, tenant.key);
          creations.set(round.idempotencyKey, round.created);
          if (round.paid) payments.push(round.paid);
        }
      };
      await Promise.all(Array.from({ length: 8 }, partner));
      loading = false;
      await killer;

      expect(crashes).toEqual([]);
      // The faults did reach requests at work (a test that terminated only idle connections would prove nothing).
      expect(hits).toBeGreaterThan(0);
      expect(unexpectedOf([...creations.values()], 201)).toEqual([]);
      expect(unexpectedOf(payments, 200)).toEqual([]);
      const unavailable = [...creations].filter(([, answer]) => answer.status === 503);
      for (const [idempotencyKey] of unavailable) {
        const again = await postIntent(t, tenant.key, { amount: '10', currencies: ['USDC'] }, idempotencyKey);
        expect(again.statusCode, again.body).toBe(201);
      }
      const [{ intents }] = (await t.db.query<{ intents: number }>('SELECT count(*)::int AS intents FROM payment_intents WHERE organization_id = $1', [
        tenant.organizationId,
      ])) as [{ intents: number }];
      expect(intents).toBe(creations.size);
    } finally {
      await t.close();
    }
  });
});

/** Checks `condition` every 25 ms, up to 15 s: a bound on a wait, never a timed assertion. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!condition()) throw new Error(`never ${what}`);
}

describe('PostgreSQL restarted under a loaded app', () => {
  it('restarted fast, then crashed (immediate) while partners create and pay intents and the workers run: the process lives on, every answer is the usual one or 503 service_unavailable, and payments go through again once the database is back', async (context) => {
    context.skip(!onPostgres, 'PostgreSQL only (TEST_DATABASE_URL unset): PGlite runs in the process, with no connection to lose');
    const missing = privatePostgresUnavailable();
    context.skip(missing !== null, `needs a private PostgreSQL server of its own: ${missing}`);

    const server = await startPrivatePostgres();
    const db = openPostgres({ connectionString: server.url });
    try {
      await migrate(db);
      const t = await startTestApp({}, { db, openSibling: () => db, close: () => db.close() });
      const work = await startBackgroundWork(t.ctx, pino({ level: 'silent' }));
      const creations: Answer[] = [];
      const payments: Answer[] = [];
      let paid = 0;
      let loading = true;
      let partners: Promise<unknown> = Promise.resolve();
      try {
        const tenant = await createTenant(t);
        const partner = async () => {
          while (loading) {
            const round = await partnerRound(t, tenant.key);
            creations.push(round.created);
            if (round.paid) payments.push(round.paid);
            if (round.paid?.status === 200) paid++;
          }
        };
        partners = Promise.all(Array.from({ length: 8 }, partner));
        for (const mode of ['fast', 'immediate'] as const) {
          const before = paid;
          await until(() => paid >= before + 20, `paid 20 intents before the ${mode} restart`);
          await server.restart(mode);
          const restarted = paid;
          await until(() => paid >= restarted + 20, `paid 20 intents after the ${mode} restart`);
        }
      } finally {
        loading = false;
        await partners;
        await work();
        await t.close();
      }
      expect(crashes).toEqual([]);
      expect(unexpectedOf(creations, 201)).toEqual([]);
      expect(unexpectedOf(payments, 200)).toEqual([]);
    } finally {
      await db.close();
      await server.stop();
    }
  });
});
