import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type Result } from 'autocannon';
import { startServer } from './child.js';
import { settleMachine, type RunContext } from './measure.js';
import { createBenchDatabase } from './postgres.js';
import { createOrganization, post } from './service.js';

const INTENTS = 200;
const TIMED_RPS = 20;
const FLOOD_CONNECTIONS = 8;
const FLOOD_RPS = 25;

/**
 * The `fairness` step of `npm run bench` (issue 20 item 3): tenant B's latency while tenant A floods the
 * costliest list, against B's latency alone, in the same run. Both keys are sandbox keys at the default
 * 25 rps, and A sends its lists at 25 a second: the rate that was all allowed through before lists were
 * cost-weighted. (A client that ignores 429s and retries at once is a flood of connections, not of database
 * work; this step does not measure that.)
 */
export const FAIRNESS_STEP = {
  name: 'fairness',
  description:
    `tenant B's GET /health and GET /payment-intents/{id} (${TIMED_RPS} rps each) alone, then while tenant A floods ` +
    `GET /payment-intents?limit=200 at ${FLOOD_RPS}/s (200 intents, its 25 rps sandbox key) on PostgreSQL (bench/fairness.ts)`,
};

const INTENT_BODY = { amount: '100.00', currencies: ['USDC', 'USDT', 'ETH'], metadata: { order: 'bench' } };

export interface FairnessRow {
  request: string;
  flood: boolean;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export interface FairnessReport {
  rows: FairnessRow[];
  /** A's answers during the flood, by status: how many lists its budget let through, and the 429s. */
  floodStatuses: Record<string, number>;
}

/** A tenant: a 100,000 rps key for its fixture, and a sandbox key at the default rate for the measurement. */
async function tenant(baseUrl: string, adminToken: string, name: string, rps?: number) {
  const organization = await createOrganization(baseUrl, adminToken, name);
  const key = await post<{ key: string }>(`${baseUrl}/admin/v1/organizations/${organization.id}/keys`, adminToken, {
    mode: 'test',
    ...(rps === undefined ? {} : { rate_limit_rps: rps }),
  });
  return { fixtureKey: organization.key, key: key.key };
}

const createIntent = (baseUrl: string, key: string) =>
  post<{ id: string }>(`${baseUrl}/connect/v1/payment-intents`, key, INTENT_BODY, { 'idempotency-key': randomUUID() });

const timed = (baseUrl: string, key: string, pathname: string, seconds: number): Promise<Result> =>
  Promise.resolve(
    autocannon({
      url: baseUrl,
      connections: 2,
      duration: seconds,
      overallRate: TIMED_RPS,
      requests: [{ method: 'GET', path: pathname, headers: { authorization: `Bearer ${key}` } }],
    }),
  );

export async function measureFairness({ repoRoot, workDir, options, cleanup }: RunContext): Promise<FairnessReport> {
  const database = await createBenchDatabase(options.postgresUrl, 'fairness');
  const dropDatabase = cleanup.add(database.drop);
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: 'src/main.ts',
    cwd: repoRoot,
    env: { LOG_LEVEL: 'warn', DATABASE_URL: database.url, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(workDir, 'fairness-server.log'),
  });
  const stopServer = cleanup.add(server.stop);
  try {
    const { baseUrl } = server;
    const a = await tenant(baseUrl, adminToken, 'Fairness A (floods)');
    const b = await tenant(baseUrl, adminToken, 'Fairness B (timed)', 100);
    for (let i = 0; i < INTENTS; i++) await createIntent(baseUrl, a.fixtureKey);
    const intent = await createIntent(baseUrl, b.fixtureKey);
    const requests = ['/connect/v1/health', `/connect/v1/payment-intents/${intent.id}`];
    const seconds = options.duration;
    const measureB = async (flood: boolean, duration: number) =>
      (await Promise.all(requests.map((pathname) => timed(baseUrl, b.key, pathname, duration)))).map(
        (result, i): FairnessRow => ({
          request: `GET ${requests[i]!.replace(intent.id, '{id}')}`,
          flood,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
        }),
      );

    const floodLists = (seconds: number) =>
      Promise.resolve(
        autocannon({
          url: baseUrl,
          connections: FLOOD_CONNECTIONS,
          duration: seconds,
          overallRate: FLOOD_RPS,
          requests: [{ method: 'GET', path: '/connect/v1/payment-intents?limit=200', headers: { authorization: `Bearer ${a.key}` } }],
        }),
      );

    // Unmeasured first: B's reads and A's list, so neither a cold JIT nor a cold pool lands in either row.
    if (options.warmup > 0) await Promise.all([measureB(false, options.warmup), floodLists(options.warmup)]);
    await settleMachine(options);
    const alone = await measureB(false, seconds);
    await settleMachine(options);
    // The flood starts a second before B is timed and ends a second after, so B is timed under it throughout.
    const flooding = floodLists(seconds + 2);
    await sleep(1000);
    const flooded = await measureB(true, seconds);
    const floodResult = await flooding;
    return {
      rows: [...alone, ...flooded],
      floodStatuses: Object.fromEntries(Object.entries(floodResult.statusCodeStats).map(([status, { count }]) => [status, count])),
    };
  } finally {
    await stopServer();
    await dropDatabase();
  }
}

export function renderFairness(report: FairnessReport): string {
  const lines = ['| tenant B request | A flooding | p50 ms | p99 ms | B non-2xx |', '|---|---|---:|---:|---:|'];
  for (const row of report.rows) lines.push(`| ${row.request} | ${row.flood ? 'yes' : 'no'} | ${row.p50Ms} | ${row.p99Ms} | ${row.non2xx} |`);
  const statuses = Object.entries(report.floodStatuses).map(([status, count]) => `${status}: ${count}`).join(', ');
  return [...lines, '', `Tenant A's answers during the flood: ${statuses}`].join('\n');
}
