import type { Command } from 'commander';
import { pino } from 'pino';
import { startBackgroundWork } from '../workers/background.js';
import { LOG_REDACTIONS } from '../http/app.js';
import { serveMetrics } from '../metrics/listener.js';
import type { RunVerb } from './run.js';

/** Resolves at the first SIGTERM or SIGINT. */
const stopSignal = () =>
  new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });

export function workerCommand(program: Command, run: RunVerb): void {
  program
    .command('worker')
    .description(
      'Run the background work (webhook delivery, chain watchers, sweeps) without serving HTTP, until SIGTERM or SIGINT. Any number may run ' +
        'beside the servers (set CONNECT_WORKERS=off on those to leave the work to workers). Needs DATABASE_URL to share it. ' +
        'With CONNECT_METRICS_ADDRESS set, serves GET /metrics there (docs/metrics.md).',
    )
    .action(() =>
      run(async (ctx) => {
        const log = pino({ level: ctx.config.logLevel, redact: LOG_REDACTIONS });
        const stop = await startBackgroundWork(ctx, log);
        const address = ctx.config.metricsAddress;
        const metrics = address ? await serveMetrics(ctx.metrics, address, log) : null;
        log.info({ database: ctx.db.kind, metrics: metrics?.url ?? null }, 'worker started');
        const signal = await stopSignal();
        log.info({ signal }, 'worker stopping: finishing the webhook attempts in flight');
        await metrics?.close();
        await stop();
        await ctx.webhookTransport.close();
        return { worker: 'stopped', signal };
      }),
    );
}
