import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_PAGE_SIZE } from '../src/domain/page-size.js';
import type { Sql } from '../src/store/database.js';
import { EVENT_JSON } from '../src/http/resources/event.js';
import { listEventTexts } from '../src/store/events.js';
import { findIntentsWithAddresses, findIntentWithAddresses } from '../src/store/payment-intents.js';
import { openPostgres } from '../src/store/postgres.js';
import type { Tenant } from '../src/domain/tenancy.js';
import { startServer } from './child.js';
import type { RunContext } from './measure.js';
import { GET_INTENT, LIST_EVENTS } from './scenarios.js';
import { createOrganization, emptyFixture, FIXTURES } from './service.js';

/** A pgbench script with the values of its variables (pgbench's -D). */
export interface PgbenchScript {
  file: string;
  defines: Record<string, string>;
}

/** A read the service sends for one of its scenarios, as a pgbench variant of its own. */
export interface ReadVariant extends PgbenchScript {
  name: string;
  shape: string;
  /** The service scenario this variant is the ceiling of; null for a variant shown beside another's ceiling. */
  scenario: string | null;
}

/** The database of the pgbench step, seeded by the service itself. */
export interface Seeded {
  organizationId: string;
  tenant: Tenant;
  intentId: string;
}

/**
 * Seeds the step's database as the service scenarios' targets are seeded: the service itself (src/main.ts, which
 * also migrates) creates the organization and runs the `intents` fixture through its API, so the rows, and with
 * them the plans, are those the service scenarios read. The service is stopped before pgbench starts.
 */
export async function seedLikeTheService({ repoRoot, workDir, cleanup }: RunContext, databaseUrl: string): Promise<Seeded> {
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: 'src/main.ts',
    cwd: repoRoot,
    env: { LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(workDir, 'pgbench-seed.log'),
  });
  const stop = cleanup.add(server.stop);
  try {
    const organization = await createOrganization(server.baseUrl, adminToken, 'pgbench');
    const fixture = emptyFixture();
    await FIXTURES.intents.create({ baseUrl: server.baseUrl, adminToken, partnerKey: organization.key, fixture });
    // The fixture's keys are sandbox keys (service.ts).
    return { organizationId: organization.id, tenant: { organizationId: organization.id, mode: 'test' }, intentId: fixture.intent_id };
  } finally {
    await stop();
  }
}

/**
 * The read variants: the statements the store functions of GET /payment-intents/{id} and GET /events send,
 * captured by running those functions on the seeded database rather than copied by hand, so that they stay the
 * statements the service sends. The caller's key is not looked up per request (src/http/caller-cache.ts keeps
 * callers in process), so a read's database work is its route's statements alone.
 */
export async function readVariants(workDir: string, databaseUrl: string, seeded: Seeded): Promise<ReadVariant[]> {
  const db = openPostgres({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    const intent = await capture(db, (sql) => findIntentWithAddresses(sql, seeded.tenant, seeded.intentId, false));
    const coalesced = await capture(db, (sql) => findIntentsWithAddresses(sql, [{ tenant: seeded.tenant, id: seeded.intentId }]));
    const events = await capture(db, (sql) => listEventTexts(sql, seeded.tenant, {}, { limit: DEFAULT_PAGE_SIZE, after: null }, EVENT_JSON));
    const addresses = intent.result?.addresses.length ?? 0;
    if (addresses === 0 || !events.result.hasMore) throw new Error('the seeded database does not hold what the read variants must read');
    return [
      {
        name: 'get-intent',
        shape: `${GET_INTENT.name}: the intent with its ${addresses} addresses and refunds as JSON (findIntentWithAddresses)`,
        scenario: GET_INTENT.name,
        ...(await writeScript(workDir, 'get-intent', intent.sent)),
      },
      {
        // The route's reads go out coalesced (store/coalesced-reads.ts); one key is how a read goes out alone. The
        // ceiling stays the plain read above: the least database work one request can cost.
        name: 'get-intent-coalesced',
        shape: `${GET_INTENT.name}, as the route sends a read that goes out alone (findIntentsWithAddresses, one key)`,
        scenario: null,
        ...(await writeScript(workDir, 'get-intent-coalesced', coalesced.sent)),
      },
      {
        name: 'list-events',
        shape: `${LIST_EVENTS.name}: one keyset page, ${DEFAULT_PAGE_SIZE + 1} rows (listEventTexts)`,
        scenario: LIST_EVENTS.name,
        ...(await writeScript(workDir, 'list-events', events.sent)),
      },
    ];
  } finally {
    await db.close();
  }
}

interface Sent {
  text: string;
  params: readonly unknown[];
}

/** What `read` returns, and every statement it sent on the way. */
async function capture<T>(db: Sql, read: (sql: Sql) => Promise<T>): Promise<{ result: T; sent: Sent[] }> {
  const sent: Sent[] = [];
  const recording: Sql = {
    query: (text, params = []) => {
      sent.push({ text, params });
      return db.query(text, params);
    },
    exec: (script) => db.exec(script),
  };
  return { result: await read(recording), sent };
}

/**
 * The statements as a pgbench script: each `$n` becomes a variable (`:s<statement>p<n>`), which `-M prepared`
 * sends as a parameter of a prepared statement again, its value given with -D.
 */
async function writeScript(workDir: string, name: string, sent: readonly Sent[]): Promise<PgbenchScript> {
  const defines: Record<string, string> = {};
  const statements = sent.map(({ text, params }, s) => {
    params.forEach((value, n) => {
      if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${name}: parameter $${n + 1} is not text or a number`);
      defines[`s${s}p${n + 1}`] = String(value);
    });
    return `${text.replace(/\$(\d+)/g, (_, n: string) => `:s${s}p${n}`)};`;
  });
  // Not named like the logs of pgbench.ts (pgbench-<variant>.<pid>…), which it reads back by that prefix.
  const file = path.join(workDir, `${name}.sql`);
  await fs.writeFile(file, `${statements.join('\n')}\n`);
  return { file, defines };
}
