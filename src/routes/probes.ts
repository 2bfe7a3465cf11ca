import type { FastifyReply } from 'fastify';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { liveSummary, pendingMigrations, withOwnerPools } from '../use-cases/live-summary.js';

/** Whether this process's background work runs: `off` when CONNECT_WORKERS=off leaves it to worker processes. */
export type WorkerStatus = () => 'alive' | 'stopped' | 'off';

type Check = { name: 'database' | 'migrations' | 'workers'; ok: boolean; detail: string };

/**
 * Probes for load balancers and orchestrators, outside both APIs' authentication: they say nothing about any
 * tenant. /livez: the process answers. /readyz: it can serve (database, schema, background work), 503 naming
 * the failing part otherwise, and what the live path runs with (whether an instance got the settings meant for it)
 * and which hot floats the latest treasury plans found below their low-water mark.
 */
export function probeRoutes(app: App, { db, config, liveEvm, liveSolana, liveTron, treasury }: AppContext, workers: WorkerStatus): void {
  const live = liveSummary(config, liveEvm, liveSolana, liveTron);
  app.get('/livez', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const checks: Check[] = [];
    let pending: string[] | null = null;
    let summary = live;
    // A low float does not stop the service from serving: it is said here (and in the metrics), not failed on.
    let floatsLow: string[] = [];
    try {
      pending = await pendingMigrations(db);
      summary = await withOwnerPools(live, db, liveSolana);
      floatsLow = (await treasury.status()).filter((s) => s.latest?.float_level === 'low').map((s) => `${s.policy.asset} on ${s.policy.network}`);
      checks.push({ name: 'database', ok: true, detail: 'reachable' });
    } catch (err) {
      // The answer is public: the cause (addresses, user names) goes to the log only.
      request.log.warn({ err }, 'readiness: the database query failed');
      checks.push({ name: 'database', ok: false, detail: 'unreachable' });
    }
    if (pending !== null) {
      checks.push({ name: 'migrations', ok: pending.length === 0, detail: pending.length ? `not applied: ${pending.join(', ')}` : 'applied' });
    }
    const worker = workers();
    checks.push({ name: 'workers', ok: worker !== 'stopped', detail: worker });
    const failing = checks.filter((check) => !check.ok).map((check) => check.name);
    reply.code(failing.length ? 503 : 200);
    return {
      status: failing.length ? 'unavailable' : 'ready',
      failing,
      checks: Object.fromEntries(checks.map((c) => [c.name, c.detail])),
      live: summary,
      treasury: { floats_low: floatsLow },
    };
  });
}
