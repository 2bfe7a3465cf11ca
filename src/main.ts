import { randomBytes } from 'node:crypto';
import { loadConfig } from './config.js';
import { createContext, openDatabase } from './context.js';
import { ADMIN_PREFIX, buildApp, PARTNER_PREFIX } from './http/app.js';
import { serveMetrics } from './metrics/listener.js';
import { startBackgroundWork } from './workers/background.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  const ctx = await createContext(config, db);
  await ctx.callers.start();
  const adminToken = config.adminToken ?? `adm_${randomBytes(24).toString('base64url')}`;
  const app = await buildApp(ctx, { adminToken });
  const demo = await ctx.operator.bootstrapDemo();
  await app.listen({ host: config.host, port: config.port });
  const metricsListener = config.metricsAddress ? await serveMetrics(ctx.metrics, config.metricsAddress, app.log) : null;
  const stopWorkers = config.runWorkers ? await startBackgroundWork(ctx, app.log) : async () => {};

  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const lines = [
    '',
    `Connect Payments is running on ${db.kind === 'pglite' ? `the embedded database (${config.dataDir})` : 'PostgreSQL'}.`,
    `  API base URL:    ${base}${PARTNER_PREFIX}`,
    `  API reference:   ${base}${PARTNER_PREFIX}/docs`,
  ];
  if (demo) {
    lines.push(
      `  Demo organization ${demo.organization.id} (active) with a sandbox key, shown only this once:`,
      `    ${demo.apiKey.key}`,
      '  Try it:',
      `    curl -H "Authorization: Bearer ${demo.apiKey.key}" ${base}${PARTNER_PREFIX}/health`,
    );
  } else {
    lines.push('  Create keys with the operator API or CLI (npx connect-payments key create --help).');
  }
  if (metricsListener) lines.push(`  Metrics, without a token: ${metricsListener.url}`);
  if (!config.adminToken) {
    lines.push(`  Operator token for ${base}${ADMIN_PREFIX} (generated; set CONNECT_ADMIN_TOKEN to choose one):`, `    ${adminToken}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    try {
      await app.close();
      await metricsListener?.close();
      await stopWorkers();
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
}

main().catch((error: unknown) => {
  process.stderr.write(`Connect Payments failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
