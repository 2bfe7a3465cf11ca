import path from 'node:path';
import { startServer } from './child.js';
import { measureScenario, type Measurement, type RunContext, type TargetRun } from './measure.js';
import { seedLikeTheService } from './pgbench-reads.js';
import { createBenchDatabase } from './postgres.js';
import { CREATE_INTENT, GET_INTENT } from './scenarios.js';
import { emptyFixture } from './service.js';

/**
 * The `floor` step of `npm run bench`: the service's create and GET of an intent against a bare Fastify route that
 * sends only the same statements (bench/floor-server.ts), on a database of its own seeded by the service. Its rows
 * stand beside the service's in the tables, and against the same pgbench ceilings: what a Node route on this
 * driver reaches at best on this machine, before any of the service's own work.
 */
export const FLOOR_STEP = {
  name: 'floor',
  description:
    'a bare Fastify route sending only the store statements of POST /payment-intents and GET /payment-intents/{id} ' +
    '(bench/floor-server.ts: node-postgres, pool of 20; no authentication, validation, addresses, envelope or hooks)',
};

export async function measureFloor(context: RunContext): Promise<Measurement[]> {
  const { repoRoot, workDir, options, cleanup } = context;
  const database = await createBenchDatabase(options.postgresUrl, 'floor');
  const drop = cleanup.add(database.drop);
  const seeded = await seedLikeTheService(context, database.url);
  const run: TargetRun = {
    label: FLOOR_STEP.name,
    target: { name: FLOOR_STEP.name, description: FLOOR_STEP.description, entry: 'bench/floor-server.ts', database: 'postgres', env: {}, scenarios: [] },
    storeEnv: { DATABASE_URL: database.url, BENCH_FLOOR_ORGANIZATION: seeded.organizationId },
    postgres: { adminUrl: options.postgresUrl, database: database.name },
  };
  const server = await startServer({
    entry: run.target.entry,
    cwd: repoRoot,
    env: run.storeEnv,
    logFile: path.join(workDir, 'floor.log'),
    ...(context.profileDir ? { preload: './bench/probe.ts' } : {}),
  });
  const stop = cleanup.add(server.stop);
  const wanted = options.scenario;
  const measurements: Measurement[] = [];
  try {
    for (const template of [CREATE_INTENT, GET_INTENT].filter((s) => wanted === null || wanted.some((text) => s.name.includes(text)))) {
      const scenario = { ...template, path: template.path.replace('{intent_id}', seeded.intentId) };
      const measurement = await measureScenario(run, scenario, server, {}, emptyFixture(), context);
      process.stderr.write(`  ${run.label} | ${scenario.name}: ${Math.round(measurement.requestsPerSecond)} req/s\n`);
      measurements.push(measurement);
    }
  } finally {
    await stop();
  }
  await drop();
  return measurements;
}
