import type { Command } from 'commander';
import { stopSignal } from './stop-signal.js';
import type { RunLocal } from './verbs.js';

export function workerCommand(program: Command, run: RunLocal): void {
  program
    .command('worker')
    .description(
      'Run the background work (webhook delivery, chain watchers, sweeps) without serving HTTP, until SIGTERM or SIGINT. Any number may run ' +
        'beside the servers (set CONNECT_WORKERS=off on those to leave the work to workers). Needs DATABASE_URL to share it. ' +
        'With CONNECT_METRICS_ADDRESS set, serves GET /metrics there (docs/metrics.md).',
    )
    .action(() =>
      run(async (ctx) => {
        // Loaded here: the other verbs, which only call the operator API, need none of it.
        const [{ startBackgroundWork }, { serveMetrics }, { pino }, { LOG_REDACTIONS, terminalLogging, URL_FREE_SERIALIZERS }] = await Promise.all([
          import('../workers/background.js'),
          import('../metrics/listener.js'),
          import('pino'),
          import('../logging.js'),
        ]);
        const log = pino({ level: ctx.config.logLevel, redact: LOG_REDACTIONS, serializers: URL_FREE_SERIALIZERS, ...terminalLogging() });
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
