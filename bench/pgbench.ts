import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startCpuMeter } from './cpu-usage.js';
import { settleMachine, type RunContext } from './measure.js';
import { readVariants, seedLikeTheService } from './pgbench-reads.js';
import { createBenchDatabase, quietDatabase } from './postgres.js';
import { CREATE_INTENT } from './scenarios.js';

/**
 * The `pgbench` step of `npm run bench`: the database work of one POST /payment-intents (3 currencies, 12
 * addresses), of one GET /payment-intents/{id} and of one GET /events, run by PostgreSQL's own load generator
 * on a database of its own, at the same number of connections as the service scenarios. They are the ceilings
 * the service's rates are judged by: what the database does per request, with no HTTP, validation, address
 * derivation or Node in between.
 */
export const PGBENCH_STEP = {
  name: 'pgbench',
  description:
    'the database work of POST /payment-intents (replay check + intent + 12 addresses + idempotency record), as the service ' +
    'does it now and as it did before (bench/pgbench/*.sql), and the statements of GET /payment-intents/{id} and GET /events ' +
    '(captured from the store), run by pgbench -M prepared on PostgreSQL (fresh database seeded by the service like its targets)',
};

/** The create variants; `statement` is the ceiling of the service's create. */
const CREATE_VARIANTS = [
  { name: 'statement', script: 'create-intent-statement.sql', shape: 'replay check + one statement (the service now)', scenario: CREATE_INTENT.name },
  { name: 'transaction', script: 'create-intent-transaction.sql', shape: 'replay check + BEGIN, claim, write, stored answer, COMMIT (before)', scenario: null },
] as const;

export interface PgbenchResult {
  variant: string;
  shape: string;
  /** The service scenario (scenarios.ts) this variant is the ceiling of, if any. */
  scenario: string | null;
  transactions: number;
  transactionsPerSecond: number;
  latencyMs: { average: number; p50: number; p99: number };
  /** pgbench itself (its two threads), every postgres process, everything else; cores, as in the service rows. */
  cpuCores: { pgbench: number; postgres: number; other: number };
  postgresMicrosPerTransaction: number;
}

const run = promisify(execFile);
/** Seconds of load before and after the measured window. */
const MARGIN_SECONDS = 1;

export async function measurePgbench(context: RunContext): Promise<PgbenchResult[]> {
  const { repoRoot, workDir, options, cleanup } = context;
  const database = await createBenchDatabase(options.postgresUrl, 'pgbench');
  const drop = cleanup.add(database.drop);
  const seeded = await seedLikeTheService(context, database.url);
  // The creates first, as in the service targets, whose reads run after their creates.
  const variants = [
    ...CREATE_VARIANTS.map(({ script, ...variant }) => ({
      ...variant,
      file: path.join(repoRoot, 'bench', 'pgbench', script),
      defines: { org: seeded.organizationId },
    })),
    ...(await readVariants(workDir, database.url, seeded)),
  ];
  const results: PgbenchResult[] = [];
  for (const variant of variants) {
    const defines = Object.entries(variant.defines).flatMap(([name, value]) => ['-D', `${name}=${value}`]);
    const args = ['-n', '-M', 'prepared', '-c', String(options.connections), '-j', '2', ...defines, '-f', variant.file];
    const env = { ...process.env, ...libpqEnv(database.url) };
    if (options.warmup > 0) await run('pgbench', [...args, '-T', String(options.warmup)], { env });
    await quietDatabase({ adminUrl: options.postgresUrl, database: database.name });
    await settleMachine(options);
    const logPrefix = path.join(workDir, `pgbench-${variant.name}`);
    // pgbench runs a little longer than the window measured, so that the window's CPU figures are read while
    // its processes (and the backends serving it) still exist; its per-transaction log covers the window.
    const child = spawn('pgbench', [...args, '-T', String(options.duration + 2 * MARGIN_SECONDS), '-l', `--log-prefix=${logPrefix}`], {
      env,
      cwd: workDir,
    });
    const output = collect(child);
    await sleep(MARGIN_SECONDS * 1000);
    const meter = startCpuMeter(child.pid!);
    const window = { from: Date.now() };
    await sleep(options.duration * 1000);
    const cores = meter();
    const seconds = (Date.now() - window.from) / 1000;
    const latencies = await transactionLatencies(workDir, path.basename(logPrefix), window.from, window.from + seconds * 1000, await output);
    const tps = latencies.length / seconds;
    results.push({
      variant: variant.name,
      shape: variant.shape,
      scenario: variant.scenario,
      transactions: latencies.length,
      transactionsPerSecond: Math.round(tps),
      latencyMs: { average: round(mean(latencies)), p50: round(percentile(latencies, 0.5)), p99: round(percentile(latencies, 0.99)) },
      cpuCores: { pgbench: cores.server, postgres: cores.postgres, other: cores.other },
      postgresMicrosPerTransaction: Math.round((cores.postgres * 1e6) / tps),
    });
  }
  await drop();
  return results;
}

/** libpq reads its connection from PG* variables; pgbench has no connection-string flag for its target. */
function libpqEnv(url: string): Record<string, string> {
  const parsed = new URL(url);
  return {
    // A Unix socket's directory is given percent-encoded in the host (postgres://user@%2Fvar%2Frun%2Fpostgresql/db).
    PGHOST: decodeURIComponent(parsed.hostname),
    PGPORT: parsed.port || '5432',
    PGUSER: decodeURIComponent(parsed.username) || 'postgres',
    PGDATABASE: parsed.pathname.slice(1),
    ...(parsed.password ? { PGPASSWORD: decodeURIComponent(parsed.password) } : {}),
  };
}

function collect(child: ReturnType<typeof spawn>): Promise<string> {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`pgbench exited ${code}:\n${output}`))));
  });
}

/**
 * Latencies in ms of the transactions that ended between `from` and `to` (epoch ms), from pgbench's logs:
 * one file per thread, a line per transaction: client, number, latency µs, script, end time s, end time µs.
 */
async function transactionLatencies(dir: string, prefix: string, from: number, to: number, output: string): Promise<number[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.startsWith(`${prefix}.`));
  const latencies: number[] = [];
  for (const file of files) {
    for (const line of (await fs.readFile(path.join(dir, file), 'utf8')).split('\n')) {
      const [, , micros, , endSeconds, endMicros] = line.split(' ').map(Number);
      const endedAt = endSeconds! * 1000 + endMicros! / 1000;
      if (endedAt >= from && endedAt < to) latencies.push(micros! / 1000);
    }
  }
  if (latencies.length === 0) throw new Error(`pgbench logged no transaction in the measured window:\n${output}`);
  return latencies.sort((a, b) => a - b);
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const round = (value: number) => Math.round(value * 100) / 100;

/** The step as a Markdown table. */
export function renderPgbench(results: readonly PgbenchResult[], connections: number): string {
  const header = ['pgbench variant', 'shape', 'TPS', 'avg ms', 'p50 ms', 'p99 ms', 'postgres µs CPU/tx', 'CPU pgbench', 'CPU postgres', 'CPU other'];
  const rows = results.map((r) => [
    r.variant,
    r.shape,
    r.transactionsPerSecond.toLocaleString('en-US'),
    r.latencyMs.average.toFixed(2),
    r.latencyMs.p50.toFixed(2),
    r.latencyMs.p99.toFixed(2),
    String(r.postgresMicrosPerTransaction),
    r.cpuCores.pgbench.toFixed(2),
    r.cpuCores.postgres.toFixed(2),
    r.cpuCores.other.toFixed(2),
  ]);
  return [
    `pgbench, ${connections} clients, 2 threads, -M prepared:`,
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
