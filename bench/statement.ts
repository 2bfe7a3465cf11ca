import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { worldAccountId } from '../src/domain/ledger.js';
import { withOwnService } from './own-service.js';
import { settleMachine, type RunContext } from './measure.js';
import { withClient } from './postgres.js';
import { createOrganization } from './service.js';

const MOVEMENTS = 100_000;
/** A tenth of the rows, read the same way: if memory followed the row count, the two peaks would differ tenfold. */
const SMALL_MOVEMENTS = 10_000;
const START = new Date('2026-01-01T00:00:00.000Z');
const RSS_SAMPLE_MS = 50;
const HEAP_SAMPLE_MS = 250;

/**
 * The `statement` step of `npm run bench` (issue 23 item 3): a statement of 100,000 movements streamed as CSV
 * from the service, while the server process's resident memory (/proc) and V8 heap (its own metrics) are sampled.
 * Bounded memory shows as a peak that does not grow with the row count: the same statement over 10,000 rows
 * peaks alike.
 */
export const STATEMENT_STEP = {
  name: 'statement',
  description:
    `GET /reports/transactions?format=csv over ${MOVEMENTS.toLocaleString('en')} and ${SMALL_MOVEMENTS.toLocaleString('en')} seeded ` +
    'movements, server RSS and heap sampled, on PostgreSQL (bench/statement.ts)',
};

export interface StatementRow {
  movements: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** The server's RSS just before the request, and at its highest during it (MiB). */
  baselineRssMiB: number;
  peakRssMiB: number;
  baselineHeapMiB: number;
  peakHeapMiB: number;
}

export interface StatementReport {
  seedSeconds: number;
  rows: StatementRow[];
}

/**
 * Writes what a deposit's credit writes, `count` times, in SQL: the ledger rows (priced), their transfers world →
 * the treasury's available account, and that account's balance. One second apart from START.
 */
async function seed(url: string, organizationId: string, count: number): Promise<void> {
  const worldId = worldAccountId(organizationId, 'test', 'USDC', 'solana');
  const ownerId = randomUUID();
  const unitPrices = JSON.stringify({ at: START.toISOString(), fiat: { USD: '1', EUR: '0.92', PEN: '3.75' } });
  await withClient(url, async (client) => {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO ledger_accounts (id, organization_id, mode, profile_id, asset, network, balance, kind, shard)
       VALUES ($1, $3, 'test', NULL, 'USDC', 'solana', 0, 'world', 0), ($2, $3, 'test', NULL, 'USDC', 'solana', 0, 'available', 0)`,
      [worldId, ownerId, organizationId],
    );
    await client.query(
      `CREATE TEMPORARY TABLE seeded ON COMMIT DROP AS
         SELECT gen_random_uuid() AS tx_id, gen_random_uuid() AS transfer_id, i, ((i % 9973) + 1)::numeric / 100 AS amount,
                $1::timestamptz + i * interval '1 second' AS at
         FROM generate_series(0, $2::int - 1) AS i`,
      [START, count],
    );
    await client.query(
      `INSERT INTO transactions (id, organization_id, mode, type, status, asset, network, amount, from_address, to_address, tx_hash,
         output_index, unit_prices, completed_at, created_at)
       SELECT tx_id, $1, 'test', 'deposit', 'confirmed', 'USDC', 'solana', amount, 'Sender' || i, 'Receiver', 'bench' || i, 0, $2::jsonb, at, at
       FROM seeded`,
      [organizationId, unitPrices],
    );
    await client.query(
      `INSERT INTO ledger_transfers (id, organization_id, mode, cause, transaction_id, created_at)
       SELECT transfer_id, $1, 'test', 'deposit:solana:bench' || i || ':0', tx_id, at FROM seeded`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO ledger_postings (transfer_id, account_id, asset, amount)
       SELECT transfer_id, $1::uuid, 'USDC', amount FROM seeded UNION ALL SELECT transfer_id, $2::uuid, 'USDC', -amount FROM seeded`,
      [ownerId, worldId],
    );
    await client.query('UPDATE ledger_accounts SET balance = (SELECT sum(amount) FROM seeded) WHERE id = $1', [ownerId]);
    await client.query('COMMIT');
    await client.query('ANALYZE');
  });
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function heapMiB(baseUrl: string, adminToken: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/admin/v1/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
  return Number(/^connect_nodejs_heap_size_used_bytes (\S+)$/m.exec(text)![1]) / 1024 / 1024;
}

/** Streams one statement, reading and dropping its bytes, while the server's memory is sampled. */
async function exportOnce(server: { pid: number; baseUrl: string }, adminToken: string, key: string, movements: number): Promise<StatementRow> {
  const to = new Date(START.getTime() + movements * 1000).toISOString();
  const baselineRssMiB = rssMiB(server.pid);
  const baselineHeapMiB = await heapMiB(server.baseUrl, adminToken);
  let peakRssMiB = baselineRssMiB;
  let peakHeapMiB = baselineHeapMiB;
  const rss = setInterval(() => (peakRssMiB = Math.max(peakRssMiB, rssMiB(server.pid))), RSS_SAMPLE_MS);
  let sampling = true;
  const heap = (async () => {
    while (sampling) {
      peakHeapMiB = Math.max(peakHeapMiB, await heapMiB(server.baseUrl, adminToken));
      await sleep(HEAP_SAMPLE_MS);
    }
  })();
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const res = await fetch(`${server.baseUrl}/connect/v1/reports/transactions?from=${START.toISOString()}&to=${to}&format=csv&fiat=usd,eur`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`the statement answered ${res.status}: ${await res.text()}`);
    for await (const chunk of res.body!) {
      bytes += chunk.byteLength;
      for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
    }
  } finally {
    clearInterval(rss);
    sampling = false;
    await heap;
  }
  const seconds = (performance.now() - started) / 1000;
  // The header, one opening and one closing line.
  if (lines !== movements + 3) throw new Error(`the statement had ${lines} lines, not ${movements + 3}`);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    movements,
    bytes,
    seconds: Math.round(seconds * 100) / 100,
    rowsPerSecond: Math.round(movements / seconds),
    baselineRssMiB: round(baselineRssMiB),
    peakRssMiB: round(peakRssMiB),
    baselineHeapMiB: round(baselineHeapMiB),
    peakHeapMiB: round(peakHeapMiB),
  };
}

export async function measureStatement(context: RunContext): Promise<StatementReport> {
  const { options } = context;
  return withOwnService(context, 'statement', async ({ server, database, adminToken }) => {
    const organization = await createOrganization(server.baseUrl, adminToken, 'Statement');
    const seeding = performance.now();
    await seed(database.url, organization.id, MOVEMENTS);
    const seedSeconds = Math.round((performance.now() - seeding) / 100) / 10;
    // Unmeasured first, so a cold JIT and a cold pool land in neither row.
    await exportOnce(server, adminToken, organization.key, SMALL_MOVEMENTS);
    const rows: StatementRow[] = [];
    for (const movements of [SMALL_MOVEMENTS, MOVEMENTS]) {
      await settleMachine(options);
      rows.push(await exportOnce(server, adminToken, organization.key, movements));
    }
    return { seedSeconds, rows };
  });
}

export function renderStatement(report: StatementReport): string {
  const header = '| movements | CSV bytes | seconds | rows/s | server RSS before → peak (MiB) | V8 heap used before → peak (MiB) |';
  const lines = report.rows.map(
    (r) =>
      `| ${r.movements.toLocaleString('en')} | ${r.bytes.toLocaleString('en')} | ${r.seconds} | ${r.rowsPerSecond.toLocaleString('en')} | ` +
      `${r.baselineRssMiB} → ${r.peakRssMiB} | ${r.baselineHeapMiB} → ${r.peakHeapMiB} |`,
  );
  return [`Statement export (seeded ${MOVEMENTS.toLocaleString('en')} movements in ${report.seedSeconds} s)`, header, '|---|---|---|---|---|---|', ...lines].join('\n');
}
