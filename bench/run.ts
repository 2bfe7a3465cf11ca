import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cleanup } from './cleanup.js';
import { describeEnvironment } from './environment.js';
import { FLOOR_STEP, measureFloor } from './floor.js';
import { FAIRNESS_STEP, measureFairness, renderFairness, type FairnessReport } from './fairness.js';
import { measureTarget, type FixtureTiming, type Measurement, type RunContext, type TargetRun } from './measure.js';
import { parseOptions, usage, type BenchOptions } from './options.js';
import { measurePgbench, PGBENCH_STEP, renderPgbench, type PgbenchResult } from './pgbench.js';
import { createBenchDatabase, type BenchDatabase } from './postgres.js';
import { checkRedis } from './redis.js';
import { baselineRequestsPerSecond, ceilingRatios, renderCeilingRatios, renderChains, renderFixtures, renderProfiles, renderTable } from './report.js';
import { BARE, SERVICE_TARGETS, type Target } from './targets.js';
import { measureStatement, renderStatement, STATEMENT_STEP, type StatementReport } from './statement.js';
import { renderWebhooks } from './webhook-report.js';
import { measureWebhooks, WEBHOOKS_STEP, type WebhooksReport } from './webhooks.js';

/**
 * `npm run bench`: starts each target as a child process, loads it with autocannon from this process, and
 * reports req/s and latency as a ratio of a bare Fastify route measured in the same run, because the
 * machines are shared and absolute figures drift from one run to the next. The `webhooks` step (bench/webhooks.ts)
 * is not a load of that kind: it times webhook delivery by worker processes, after the service targets.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsDir = path.join(repoRoot, 'bench', 'results');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const targetNames = [...SERVICE_TARGETS.map((t) => t.name), PGBENCH_STEP.name, FLOOR_STEP.name, WEBHOOKS_STEP.name, FAIRNESS_STEP.name, STATEMENT_STEP.name];
  const options = parseOptions(argv, process.env, targetNames);
  if (options === 'help') {
    process.stdout.write(usage(targetNames));
    return;
  }
  const selected = SERVICE_TARGETS.filter((t) => !options.only || options.only.includes(t.name));
  const webhooksSelected = !options.only || options.only.includes(WEBHOOKS_STEP.name);
  const pgbenchSelected = !options.only || options.only.includes(PGBENCH_STEP.name);
  const floorSelected = !options.only || options.only.includes(FLOOR_STEP.name);
  const fairnessSelected = !options.only || options.only.includes(FAIRNESS_STEP.name);
  const statementSelected = !options.only || options.only.includes(STATEMENT_STEP.name);
  // Before anything starts: a run that stops at its redis target would have spent its other targets for nothing.
  if (selected.some((t) => t.redis)) await checkRedis(options.redisUrl);
  const cleanup = new Cleanup();
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'connect-bench-'));
  const removeWorkDir = () => fs.rm(workDir, { recursive: true, force: true });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup.run().then(removeWorkDir).finally(() => process.exit(130)));
  }
  const profileDir = options.profile ? await fs.mkdtemp(path.join(os.tmpdir(), 'connect-bench-profiles-')) : null;
  const context: RunContext = { repoRoot, workDir, profileDir, options, cleanup };
  const startedAt = new Date();
  const measurements: Measurement[] = [];
  const fixtures: FixtureTiming[] = [];
  let database: BenchDatabase | null = null;
  let webhooks: WebhooksReport | null = null;
  let pgbench: PgbenchResult[] | null = null;
  let fairness: FairnessReport | null = null;
  let statement: StatementReport | null = null;
  try {
    if (selected.some((t) => t.database === 'postgres')) {
      database = await createBenchDatabase(options.postgresUrl);
      cleanup.add(database.drop);
    }
    // The baseline runs first and last: if the machine got busier meanwhile, the two bare rows disagree.
    const runs = [run('bare, before', BARE, database, options, workDir)];
    for (const target of selected) runs.push(run(target.name, target, database, options, workDir));
    for (const targetRun of runs) await measureRun(targetRun, context, measurements, fixtures);
    // Not autocannon targets: steps of their own, each with its own database, before the second baseline.
    if (pgbenchSelected) {
      process.stderr.write(`${PGBENCH_STEP.name}: ${PGBENCH_STEP.description}\n`);
      pgbench = await measurePgbench(context);
    }
    if (floorSelected) {
      process.stderr.write(`${FLOOR_STEP.name}: ${FLOOR_STEP.description}\n`);
      measurements.push(...(await measureFloor(context)));
    }
    if (webhooksSelected) {
      process.stderr.write(`${WEBHOOKS_STEP.name}: ${WEBHOOKS_STEP.description}\n`);
      webhooks = await measureWebhooks(context);
    }
    if (fairnessSelected) {
      process.stderr.write(`${FAIRNESS_STEP.name}: ${FAIRNESS_STEP.description}\n`);
      fairness = await measureFairness(context);
    }
    if (statementSelected) {
      process.stderr.write(`${STATEMENT_STEP.name}: ${STATEMENT_STEP.description}\n`);
      statement = await measureStatement(context);
    }
    await measureRun(run('bare, after', BARE, database, options, workDir), context, measurements, fixtures);
  } catch (error) {
    // rmdir removes the directory only when empty: child logs, if any, are kept for the post-mortem.
    await fs.rmdir(workDir).catch(() => process.stderr.write(`Child logs and data are kept in ${workDir}\n`));
    throw error;
  } finally {
    await cleanup.run();
  }
  await removeWorkDir();

  const baseline = baselineRequestsPerSecond(measurements);
  const postgresTargets = selected.filter((t) => t.database === 'postgres').map((t) => t.name);
  const ceilings = ceilingRatios(measurements, pgbench, baseline, postgresTargets);
  const report = {
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    date: startedAt.toISOString(),
    ...(await describeEnvironment(repoRoot, database?.serverVersion ?? webhooks?.postgresVersion ?? null)),
    options: { ...options, postgresUrl: undefined, redisUrl: undefined }, // the URLs may carry a password
    targets: Object.fromEntries(
      [BARE, ...selected, ...(pgbench ? [PGBENCH_STEP] : []), ...(floorSelected ? [FLOOR_STEP] : []), ...(webhooks ? [WEBHOOKS_STEP] : []), ...(fairness ? [FAIRNESS_STEP] : []), ...(statement ? [STATEMENT_STEP] : [])].map((t) => [t.name, t.description]),
    ),
    baselineRequestsPerSecond: Math.round(baseline),
    fixtures,
    measurements,
    ceilings,
    ...(pgbench ? { pgbench } : {}),
    ...(webhooks ? { webhooks } : {}),
    ...(fairness ? { fairness } : {}),
    ...(statement ? { statement } : {}),
  };
  // A profiled run is slower throughout: its results stay with its profiles, not in place of the plain figures.
  const resultsFile = profileDir ? path.join(profileDir, 'results.json') : path.join(resultsDir, 'latest.json');
  await fs.mkdir(path.dirname(resultsFile), { recursive: true });
  await fs.writeFile(resultsFile, `${JSON.stringify(report, null, 2)}\n`);

  const { machine, versions } = report;
  const chained = measurements.some((m) => m.chain);
  process.stdout.write(
    [
      '',
      `${report.command} | ${report.date} | ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB`,
      `Node ${versions.node}, PostgreSQL ${versions.postgres ?? '-'}, PGlite ${versions.pglite}, Fastify ${versions.fastify}`,
      `service at ${report.service}`,
      `${options.connections} connections, ${options.duration} s per scenario after ${options.warmup} s of warm-up`,
      'CPU in cores (1.00 = one core busy throughout); µs CPU/req = CPU time per request served',
      ...(chained ? ['Chained scenarios (two requests joined by "+") count pairs: req/s, latency and µs CPU/req are per pair'] : []),
      '',
      renderTable(measurements, baseline),
      '',
      ...(chained ? [renderChains(measurements), ''] : []),
      ...(fixtures.length > 0 ? [renderFixtures(fixtures), ''] : []),
      ...(pgbench ? [renderPgbench(pgbench, options.connections), ''] : []),
      ...(ceilings.length > 0 ? [renderCeilingRatios(ceilings), ''] : []),
      ...(webhooks ? [renderWebhooks(webhooks), ''] : []),
      ...(fairness ? [renderFairness(fairness), ''] : []),
      ...(statement ? [renderStatement(statement), ''] : []),
      options.profile ? `${renderProfiles(measurements)}\n` : '',
      `Results written to ${resultsFile}`,
      '',
    ].join('\n'),
  );
}

async function measureRun(targetRun: TargetRun, context: RunContext, measurements: Measurement[], fixtures: FixtureTiming[]): Promise<void> {
  process.stderr.write(`${targetRun.label}: ${targetRun.target.description}\n`);
  const measured = await measureTarget(targetRun, context);
  measurements.push(...measured.measurements);
  fixtures.push(...measured.fixtures);
}

function run(label: string, target: Target, database: BenchDatabase | null, options: BenchOptions, workDir: string): TargetRun {
  const redis: Record<string, string> = target.redis ? { REDIS_URL: options.redisUrl } : {};
  if (target.database === 'postgres') {
    const postgres = { adminUrl: options.postgresUrl, database: database!.name };
    return { label, target, storeEnv: { DATABASE_URL: database!.url, ...redis }, postgres };
  }
  // A new PGlite data directory per run, inside the scratch directory removed at the end.
  const pglite: Record<string, string> = target.database === 'pglite' ? { CONNECT_DATA_DIR: path.join(workDir, `pglite-${label}`) } : {};
  return { label, target, storeEnv: { ...pglite, ...redis }, postgres: null };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
