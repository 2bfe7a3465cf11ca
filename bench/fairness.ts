import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { settleMachine, type RunContext } from './measure.js';
import { withOwnService } from './own-service.js';
import { createOrganization, post } from './service.js';

const execFileAsync = promisify(execFile);
const AUTOCANNON = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'autocannon');
const INTENTS = 200;
const TIMED_RPS = 20;
const FLOOD_CONNECTIONS = 8;
const FLOOD_RPS = 25;

/**
 * The `fairness` step of `npm run bench` (issue 20 item 3): tenant B's latency while tenant A floods the
 * costliest list, against B's latency alone before and after it, in the same run. A's key is a sandbox key at
 * the default 25 rps, and A sends its lists at 25 a second: the rate that was all allowed through before
 * lists were cost-weighted. B's key allows 100 rps, so B's own limit never shows in its figures. (A client
 * that ignores 429s and retries at once is a flood of connections, not of database work; this step does not
 * measure that.)
 */
export const FAIRNESS_STEP = {
  name: 'fairness',
  description:
    `tenant B's GET /health and GET /payment-intents/{id} (${TIMED_RPS} rps each) alone, while tenant A floods ` +
    `GET /payment-intents?limit=200 at ${FLOOD_RPS}/s (200 intents, its 25 rps sandbox key, from a process of its own), ` +
    'and alone again, on PostgreSQL (bench/fairness.ts)',
};

const INTENT_BODY = { amount: '100.00', currencies: ['USDC', 'USDT', 'ETH'], metadata: { order: 'bench' } };

export interface FairnessRow {
  request: string;
  /** When B was timed: alone before the flood, under it, alone again after it. */
  phase: 'alone, before' | 'flood' | 'alone, after';
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

export async function measureFairness(context: RunContext): Promise<FairnessReport> {
  const { options } = context;
  return withOwnService(context, 'fairness', async ({ server, adminToken }) => {
    const { baseUrl } = server;
    const a = await tenant(baseUrl, adminToken, 'Fairness A (floods)');
    const b = await tenant(baseUrl, adminToken, 'Fairness B (timed)', 100);
    for (let i = 0; i < INTENTS; i++) await createIntent(baseUrl, a.fixtureKey);
    const intent = await createIntent(baseUrl, b.fixtureKey);
    const requests = ['/connect/v1/health', `/connect/v1/payment-intents/${intent.id}`];
    const seconds = options.duration;
    const measureB = async (phase: FairnessRow['phase'], duration: number) =>
      (await Promise.all(requests.map((pathname) => timed(baseUrl, b.key, pathname, duration)))).map(
        (result, i): FairnessRow => ({
          request: `GET ${requests[i]!.replace(intent.id, '{id}')}`,
          phase,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
        }),
      );

    // The flood runs in a process of its own: reading its 300 KB answers must not delay the event loop that
    // times B, or B's figures would measure the load generator rather than the server.
    const floodLists = (seconds: number) =>
      floodInChild(baseUrl, seconds, '/connect/v1/payment-intents?limit=200', a.key);

    // Unmeasured first: B's reads and A's list, so neither a cold JIT nor a cold pool lands in either row.
    if (options.warmup > 0) await Promise.all([measureB('alone, before', options.warmup), floodLists(options.warmup)]);
    await settleMachine(options);
    const before = await measureB('alone, before', seconds);
    await settleMachine(options);
    // The flood starts a second before B is timed and ends a second after, so B is timed under it throughout.
    const flooding = floodLists(seconds + 2);
    await sleep(1000);
    const flooded = await measureB('flood', seconds);
    const floodResult = await flooding;
    // Alone again: the unloaded figures on either side of the flood show how much the machine itself moved.
    await settleMachine(options);
    const after = await measureB('alone, after', seconds);
    return {
      rows: [...before, ...flooded, ...after],
      floodStatuses: floodResult,
    };
  });
}

/** autocannon's command line in a child process; resolves to how many answers of each status it got. */
async function floodInChild(baseUrl: string, seconds: number, pathname: string, key: string): Promise<Record<string, number>> {
  const args = ['-c', String(FLOOD_CONNECTIONS), '-d', String(seconds), '-R', String(FLOOD_RPS), '-H', `authorization=Bearer ${key}`, '-j', `${baseUrl}${pathname}`];
  const { stdout } = await execFileAsync(AUTOCANNON, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { statusCodeStats?: Record<string, { count: number }> };
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]));
}

export function renderFairness(report: FairnessReport): string {
  const lines = ['| tenant B request | timed | p50 ms | p99 ms | B non-2xx |', '|---|---|---:|---:|---:|'];
  for (const row of report.rows) lines.push(`| ${row.request} | ${row.phase} | ${row.p50Ms} | ${row.p99Ms} | ${row.non2xx} |`);
  const statuses = Object.entries(report.floodStatuses).map(([status, count]) => `${status}: ${count}`).join(', ');
  return [...lines, '', `Tenant A's answers during the flood: ${statuses}`].join('\n');
}
