import fs from 'node:fs';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** Seconds of measured load per scenario. */
  duration: number;
  /** Seconds of unmeasured load before each measured run (JIT, connection pools, caches). */
  warmup: number;
  connections: number;
  /** At most this many seconds of waiting, before each scenario, for other work on the machine to stop. */
  settle: number;
  /** Service targets (and the webhooks step) to run; the bare baseline always runs. */
  only: string[] | null;
  /** Only the service scenarios whose name contains one of these texts. */
  scenario: string[] | null;
  /** End users of the tenant-wide balances scenario's organization (its `profiles` fixture). */
  profiles: number;
  /** Webhooks step: events queued per throughput variant (pairs of a paid intent's two events). */
  webhookEvents: number;
  /** Webhooks step: sequential intents timed from simulated deposit to receipt. */
  webhookIntents: number;
  /** Record a CPU profile, SQL statement counts and PostgreSQL session states per scenario. */
  profile: boolean;
  /** A database on the PostgreSQL server to connect to while creating and dropping the run's database. */
  postgresUrl: string;
  /** The Redis of targets that keep rate-limit counters there. */
  redisUrl: string;
}

export const usage = (targetNames: readonly string[]) => `Usage: npm run bench -- [options]

  --duration <s>       measured seconds per scenario        (BENCH_DURATION, default 10)
  --warmup <s>         warm-up seconds before each scenario (BENCH_WARMUP, default 3)
  --connections <n>    concurrent connections               (BENCH_CONNECTIONS, default 32)
  --settle <s>         wait up to s seconds before each scenario for the machine to be
                       quiet (under 0.25 cores busy); 0 skips it (BENCH_SETTLE, default 30)
  --only <a,b>         service targets to run, the bare baseline always runs (BENCH_ONLY);
                       targets: ${targetNames.join(', ')}
  --scenario <text>    only the service scenarios whose name contains text, e.g.
                       'POST /connect/v1/payment-intents'; several texts separated
                       by | (BENCH_SCENARIO)
  --profiles <n>       end users holding 3 assets each in the tenant-wide balances
                       scenario's organization (BENCH_PROFILES, default 1000)
  --webhook-events <n> webhooks step: events delivered per throughput variant, even
                       (BENCH_WEBHOOK_EVENTS, default 20000)
  --webhook-intents <n> webhooks step: intents timed from deposit to receipt
                       (BENCH_WEBHOOK_INTENTS, default 200)
  --profile            CPU profile, SQL per request and PostgreSQL session states (BENCH_PROFILE=1);
                       slows the server down, so its req/s are not comparable to a plain run
  --postgres-url <url> maintenance connection (BENCH_POSTGRES_URL, default the local server's Unix socket, else 127.0.0.1:5432)
  --redis-url <url>    Redis of the postgres-redis target (BENCH_REDIS_URL, default redis://127.0.0.1:6379)

An earlier commit's own benchmark, to compare by scenario name: bench/at-commit.sh <commit> [options]
`;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv, targetNames: readonly string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      settle: { type: 'string' },
      only: { type: 'string' },
      scenario: { type: 'string' },
      profiles: { type: 'string' },
      'webhook-events': { type: 'string' },
      'webhook-intents': { type: 'string' },
      profile: { type: 'boolean' },
      'postgres-url': { type: 'string' },
      'redis-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  const onlyList = values.only ?? env.BENCH_ONLY;
  const scenarioList = values.scenario ?? env.BENCH_SCENARIO;
  const only = onlyList ? onlyList.split(',').map((name) => name.trim()).filter(Boolean) : null;
  const unknown = only?.filter((name) => !targetNames.includes(name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(', ')}; targets: ${targetNames.join(', ')}`);
  const webhookEvents = number('webhook-events', values['webhook-events'] ?? env.BENCH_WEBHOOK_EVENTS, 20_000, 2);
  if (webhookEvents % 2 !== 0) throw new Error(`--webhook-events must be even (pairs of events), got ${webhookEvents}`);
  return {
    duration: number('duration', values.duration ?? env.BENCH_DURATION, 10, 1),
    warmup: number('warmup', values.warmup ?? env.BENCH_WARMUP, 3, 0),
    connections: number('connections', values.connections ?? env.BENCH_CONNECTIONS, 32, 1),
    settle: number('settle', values.settle ?? env.BENCH_SETTLE, 30, 0),
    only,
    scenario: scenarioList ? scenarioList.split('|').filter(Boolean) : null,
    profiles: number('profiles', values.profiles ?? env.BENCH_PROFILES, 1_000, 1),
    webhookEvents,
    webhookIntents: number('webhook-intents', values['webhook-intents'] ?? env.BENCH_WEBHOOK_INTENTS, 200, 1),
    profile: values.profile ?? env.BENCH_PROFILE === '1',
    postgresUrl: values['postgres-url'] ?? env.BENCH_POSTGRES_URL ?? defaultPostgresUrl(),
    redisUrl: values['redis-url'] ?? env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

function number(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}, got "${raw}"`);
  return value;
}

const LOCAL_SOCKET_DIR = '/var/run/postgresql';

/**
 * The local server through its Unix socket when it has one (what a deployment on the same host should use: a query
 * costs the client about a third less CPU than over loopback TCP, see bench/history/2026-11-27-issue-24.md), else over TCP. The service
 * and pgbench are both given this URL, so each ceiling is measured over the same transport as its scenario.
 */
function defaultPostgresUrl(): string {
  return fs.existsSync(`${LOCAL_SOCKET_DIR}/.s.PGSQL.5432`)
    ? `postgres://postgres@${encodeURIComponent(LOCAL_SOCKET_DIR)}/postgres`
    : 'postgres://postgres@127.0.0.1:5432/postgres';
}
