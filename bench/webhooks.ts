import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startServer, startWorker, type WorkerProcess } from './child.js';
import { settleMachine, type RunContext } from './measure.js';
import { createBenchDatabase, quietDatabase } from './postgres.js';
import { measureLatency, type LatencyResult } from './webhook-latency.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { measureThroughput, prepareVariant, type ThroughputResult } from './webhook-throughput.js';

/**
 * The `webhooks` step of `npm run bench`: not an autocannon scenario but a measurement of the webhook
 * dispatchers, on a PostgreSQL database of its own. The server runs with CONNECT_WORKERS=off (it queues,
 * it does not deliver); two `connect-payments worker` processes deliver to a receiver in the runner.
 */
export const WEBHOOKS_STEP = {
  name: 'webhooks',
  description:
    'webhook delivery on PostgreSQL (fresh database): the server with CONNECT_WORKERS=off, two `connect-payments worker` ' +
    'processes (default concurrency settings) delivering to an HTTP receiver in the runner (bench/webhooks.ts)',
};

export const WEBHOOK_GOALS = { deliveriesPerSecond: 1_000, p99Ms: 250 };
const WORKERS = 2;
const SERVER_ENV = { LOG_LEVEL: 'warn', CONNECT_WORKERS: 'off' };

/** What the step's parts share. */
export interface WebhookStage {
  baseUrl: string;
  adminToken: string;
  servicePid: number;
  databaseUrl: string;
  databaseName: string;
  /** The maintenance connection (for pg_stat_activity). */
  adminUrl: string;
  receiver: WebhookReceiver;
  workers: WorkerProcess[];
  profile: boolean;
}

export interface WebhooksReport {
  database: string;
  postgresVersion: string;
  workers: number;
  fixture: string;
  throughput: ThroughputResult[];
  latency: LatencyResult;
  goals: typeof WEBHOOK_GOALS;
  /** How each worker ended on SIGTERM: `exit code 0` is a clean stop. */
  workerExits: string[];
}

export async function measureWebhooks({ repoRoot, workDir, options, cleanup }: RunContext): Promise<WebhooksReport> {
  const database = await createBenchDatabase(options.postgresUrl, 'webhooks');
  const dropDatabase = cleanup.add(database.drop);
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: 'src/main.ts',
    cwd: repoRoot,
    env: { ...SERVER_ENV, DATABASE_URL: database.url, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(workDir, 'webhooks-server.log'),
  });
  const stopServer = cleanup.add(server.stop);
  const receiver = await WebhookReceiver.start();
  const closeReceiver = cleanup.add(receiver.close);
  const stage: WebhookStage = {
    baseUrl: server.baseUrl,
    adminToken,
    servicePid: server.pid,
    databaseUrl: database.url,
    databaseName: database.name,
    adminUrl: options.postgresUrl,
    receiver,
    workers: [],
    profile: options.profile,
  };
  const workerExits: string[] = [];
  const stopWorkers: (() => Promise<void>)[] = [];
  const settle = async () => {
    await quietDatabase({ adminUrl: options.postgresUrl, database: database.name });
    await settleMachine(options);
  };
  const events = options.webhookEvents;
  const progress = (text: string) => process.stderr.write(`  webhooks | ${text}\n`);
  try {
    const spread = await prepareVariant(stage, 'four-endpoints', 4, events);
    progress(`fixture: ${events.toLocaleString('en-US')} events over 4 organizations in ${spread.fixture.seconds} s`);
    // Started once the first fixture is in: they are idle and ready when the measured span begins.
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, i) => {
        const logFile = path.join(workDir, `webhooks-worker-${i + 1}.log`);
        const worker = await startWorker({ cwd: repoRoot, env: { DATABASE_URL: database.url }, logFile });
        stage.workers[i] = worker;
        stopWorkers.push(cleanup.add(async () => void (workerExits[i] = await worker.stop())));
      }),
    );
    progress(`${WORKERS} workers ready`);

    await settle();
    const throughput = [await measureThroughput(stage, spread)];
    progress(`four endpoints: ${throughput[0]!.deliveriesPerSecond.toLocaleString('en-US')} deliveries/s`);
    const single = await prepareVariant(stage, 'one-endpoint', 1, events);
    progress(`fixture: ${events.toLocaleString('en-US')} events in one organization in ${single.fixture.seconds} s`);
    await settle();
    throughput.push(await measureThroughput(stage, single));
    progress(`one endpoint: ${throughput[1]!.deliveriesPerSecond.toLocaleString('en-US')} deliveries/s`);

    await settle();
    const latency = await measureLatency(stage, options.webhookIntents, WEBHOOK_GOALS.p99Ms);
    progress(`latency: p99 ${latency.receivedMs.p99} ms to payment.received, ${latency.completedMs.p99} ms to payment.completed`);
    await Promise.all(stopWorkers.map((stop) => stop()));
    return {
      database: database.name,
      postgresVersion: database.serverVersion,
      workers: WORKERS,
      fixture:
        `${events.toLocaleString('en-US')} events per throughput variant (${(events / 2).toLocaleString('en-US')} pairs of ` +
        'payment_intent.payment_received + payment_intent.completed sharing related_to, with sandbox-shaped data), ' +
        'inserted straight into the events table with SQL in batches of 1,000: a fixture, not written by the service',
      throughput,
      latency,
      goals: WEBHOOK_GOALS,
      workerExits,
    };
  } finally {
    // Workers first: they would complain about the server's database going away under them.
    await Promise.all(stopWorkers.map((stop) => stop()));
    await closeReceiver();
    await stopServer();
    await dropDatabase();
  }
}
