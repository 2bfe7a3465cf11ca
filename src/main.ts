import type { AddressInfo } from 'node:net';
import { banner } from './banner.js';
import { loadConfig } from './config.js';
import { liveSummary, withOwnerPools } from './use-cases/live-summary.js';
import { createContext, openDatabase } from './context.js';
import { buildApp } from './http/app.js';
import { terminalLogging } from './logging.js';
import { serveMetrics } from './metrics/listener.js';
import { announceServer, operatorToken } from './operator-files.js';
import { startBackgroundWork, type BackgroundWork } from './workers/background.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // Before the database: a missing CONNECT_ADMIN_TOKEN on PostgreSQL is a configuration error, found at once.
  const token = operatorToken(config);
  const db = await openDatabase(config);
  const ctx = await createContext(config, db);
  await ctx.callers.start();
  let work: BackgroundWork | null = null;
  const app = await buildApp(ctx, {
    adminToken: token.token,
    logger: terminalLogging(),
    workers: () => (!config.runWorkers ? 'off' : work?.alive() ? 'alive' : 'stopped'),
  });
  const demo = await ctx.operator.bootstrapDemo();
  await app.listen({ host: config.host, port: config.port });
  const metricsListener = config.metricsAddress ? await serveMetrics(ctx.metrics, config.metricsAddress, app.log) : null;
  work = config.runWorkers ? await startBackgroundWork(ctx, app.log) : null;

  const { port } = app.server.address() as AddressInfo;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // The CLI on this machine sends its verbs here while this process holds the embedded database.
  const withdraw = db.kind === 'pglite' ? announceServer(config.dataDir, { pid: process.pid, url: base }) : () => {};

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    try {
      withdraw();
      await app.close();
      await metricsListener?.close();
      await work?.();
      await ctx.callers.stop();
      await ctx.webhookTransport.close();
      await ctx.limiter.close();
      await db.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Last: whoever reads it may signal at once, and the handlers above must be in place by then.
  process.stdout.write(
    banner({ base, database: { kind: db.kind, dataDir: config.dataDir }, demo, token, metricsUrl: metricsListener?.url ?? null, live: await withOwnerPools(liveSummary(config, ctx.liveEvm, ctx.liveSolana, ctx.liveTron), db, ctx.liveSolana) }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Connect Payments failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
