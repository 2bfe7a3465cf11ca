import { BARE_SCENARIOS, HEALTH, MONEY_IN_SCENARIOS, MONEY_OUT_SCENARIOS, PAGE_SCENARIOS, SERVICE_SCENARIOS, type Scenario } from './scenarios.js';

export interface Target {
  name: string;
  /** What this target's figures show, printed with the results. */
  description: string;
  /** Script the server child runs, relative to the repository root. */
  entry: string;
  database: 'none' | 'postgres' | 'pglite';
  /** Rate-limit counters in the Redis at --redis-url (the runner passes it as REDIS_URL). */
  redis?: true;
  env: Record<string, string>;
  scenarios: readonly Scenario[];
}

/** Runs first and last in every run, whatever `--only` says: every other figure is a ratio of it. */
export const BARE: Target = {
  name: 'bare',
  description: 'Fastify 5 hello world, no logging, hooks or database (bench/bare-server.ts)',
  entry: 'bench/bare-server.ts',
  database: 'none',
  env: {},
  scenarios: BARE_SCENARIOS,
};

/**
 * The load generator is one client address: the public pages' per-address limit would refuse almost all of it,
 * and its budget of misses (a point held by each lookup in flight) some of its 32 concurrent lookups.
 */
const ONE_CLIENT_ADDRESS = { CONNECT_PAGES_RPS_PER_ADDRESS: '1000000', CONNECT_PAGES_MISSES_PER_MINUTE_PER_ADDRESS: '1000000' };

// LOG_LEVEL=warn for the main figures: at info Fastify writes two log lines per request, which on its
// own costs about a third of the throughput; the postgres-info target keeps that cost visible.
export const SERVICE_TARGETS: readonly Target[] = [
  {
    name: 'postgres',
    description: 'the service on PostgreSQL (fresh database), LOG_LEVEL=warn, its default rate-limit store without REDIS_URL (memory)',
    entry: 'src/main.ts',
    database: 'postgres',
    env: { LOG_LEVEL: 'warn', CONNECT_RATE_LIMIT_STORE: 'memory', ...ONE_CLIENT_ADDRESS },
    scenarios: [...SERVICE_SCENARIOS, ...MONEY_IN_SCENARIOS, ...PAGE_SCENARIOS, ...MONEY_OUT_SCENARIOS],
  },
  {
    name: 'postgres-info',
    description: 'as postgres, with LOG_LEVEL=info: the cost of per-request logging',
    entry: 'src/main.ts',
    database: 'postgres',
    env: { LOG_LEVEL: 'info' },
    scenarios: [HEALTH],
  },
  {
    name: 'postgres-redis',
    description: 'as postgres, with CONNECT_RATE_LIMIT_STORE=redis (several instances): counters shared through Redis',
    entry: 'src/main.ts',
    database: 'postgres',
    redis: true,
    env: { LOG_LEVEL: 'warn', CONNECT_RATE_LIMIT_STORE: 'redis' },
    scenarios: [...SERVICE_SCENARIOS, ...MONEY_IN_SCENARIOS.slice(0, 2)],
  },
  {
    name: 'postgres-pgcounter',
    description: 'as postgres, with CONNECT_RATE_LIMIT_STORE=postgres: counters shared through a PostgreSQL upsert per request',
    entry: 'src/main.ts',
    database: 'postgres',
    env: { LOG_LEVEL: 'warn', CONNECT_RATE_LIMIT_STORE: 'postgres' },
    scenarios: SERVICE_SCENARIOS,
  },
  {
    name: 'pglite',
    description: 'the service on embedded PGlite (fresh data directory), LOG_LEVEL=warn, in-memory rate limits',
    entry: 'src/main.ts',
    database: 'pglite',
    env: { LOG_LEVEL: 'warn', ...ONE_CLIENT_ADDRESS },
    scenarios: [...SERVICE_SCENARIOS, ...MONEY_IN_SCENARIOS, ...PAGE_SCENARIOS, ...MONEY_OUT_SCENARIOS],
  },
];
