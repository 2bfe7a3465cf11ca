import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServer, type ServerProcess } from './child.js';
import type { Cleanup } from './cleanup.js';
import { startCpuMeter, waitForQuietMachine, type CpuCores } from './cpu-usage.js';
import { chainLatency, checkAnswers, generateLoad, toLoad, type ChainTally } from './load.js';
import type { BenchOptions } from './options.js';
import { quietDatabase } from './postgres.js';
import { startProfiling, type ProfileReport } from './profiling.js';
import type { Fixture, FixtureName, Scenario } from './scenarios.js';
import { createPartnerKey, emptyFixture, FIXTURES, type FixtureContext } from './service.js';
import type { Target } from './targets.js';

export interface Measurement {
  /** The target's name, with a suffix when it runs twice (the baseline). */
  target: string;
  scenario: string;
  /** Mean of autocannon's one-second samples; for a chained scenario, chains completed per second of load. */
  requestsPerSecond: number;
  /** autocannon records whole milliseconds, so percentiles of sub-millisecond answers read 0 or 1. */
  latencyMs: { average: number; p50: number; p99: number };
  requests: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  cpuCores: CpuCores;
  /**
   * Chained scenarios only (`then` in scenarios.ts): requestsPerSecond, latencyMs and the CPU per request
   * are per chain; this holds the HTTP view.
   */
  chain?: {
    completed: number;
    httpRequestsPerSecond: number;
    /** Answers by status code, per request of the chain. */
    answers: { request: string; byStatus: Record<string, number> }[];
  };
  profile?: ProfileReport;
}

/** A fixture as it was created for one target, and how long that took. */
export interface FixtureTiming {
  target: string;
  fixture: FixtureName;
  description: string;
  seconds: number;
}

export interface TargetRun {
  label: string;
  target: Target;
  /** How this run reaches its stores: DATABASE_URL or CONNECT_DATA_DIR, and REDIS_URL for a redis target. */
  storeEnv: Record<string, string>;
  /** The run's PostgreSQL database, watched when profiling. */
  postgres: { adminUrl: string; database: string } | null;
}

export interface RunContext {
  repoRoot: string;
  /** Scratch directory of this run: child logs, PGlite data. */
  workDir: string;
  /** Where CPU profiles go; null without --profile. */
  profileDir: string | null;
  options: BenchOptions;
  cleanup: Cleanup;
}

/**
 * Starts the target's server, prepares a key if it is the service, measures each scenario, stops it. Each
 * fixture is created just before the first scenario that needs it: the scenarios before it run on a database
 * without it, as they did before it was written.
 */
export async function measureTarget(run: TargetRun, context: RunContext): Promise<{ measurements: Measurement[]; fixtures: FixtureTiming[] }> {
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: run.target.entry,
    cwd: context.repoRoot,
    env: { ...run.target.env, ...run.storeEnv, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(context.workDir, `${slug(run.label)}.log`),
    ...(context.profileDir ? { preload: './bench/probe.ts' } : {}),
  });
  const stop = context.cleanup.add(server.stop);
  try {
    const partnerKey = run.target.database === 'none' ? null : await createPartnerKey(server.baseUrl, adminToken);
    const fixture: Fixture = emptyFixture();
    const { profiles } = context.options;
    const fixtureContext: FixtureContext | null = partnerKey ? { baseUrl: server.baseUrl, adminToken, partnerKey, fixture, profiles } : null;
    const fixtures: FixtureTiming[] = [];
    const measurements: Measurement[] = [];
    const wanted = run.target.database === 'none' ? null : context.options.scenario;
    for (const template of run.target.scenarios.filter((s) => wanted === null || wanted.some((text) => s.name.includes(text)))) {
      for (const name of template.needs ?? []) {
        if (!fixtureContext || fixtures.some((f) => f.fixture === name)) continue;
        const timing = await createFixture(run.label, name, fixtureContext);
        process.stderr.write(`  ${run.label} | fixture ${name} (${timing.description}): ${timing.seconds} s\n`);
        fixtures.push(timing);
      }
      const key = template.organization === 'profiles' ? fixture.profiles_key : partnerKey;
      const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
      const scenario = {
        ...template,
        name: template.name.replace('{profiles}', profiles.toLocaleString('en')),
        path: template.path.replace('{intent_id}', fixture.intent_id).replace('{ref_code}', fixture.ref_code),
      };
      const measurement = await measureScenario(run, scenario, server, headers, fixture, context);
      const unit = measurement.chain ? 'pairs/s' : 'req/s';
      process.stderr.write(`  ${run.label} | ${scenario.name}: ${Math.round(measurement.requestsPerSecond)} ${unit}\n`);
      measurements.push(measurement);
    }
    return { measurements, fixtures };
  } finally {
    await stop();
  }
}

export async function measureScenario(
  run: TargetRun,
  scenario: Scenario,
  server: ServerProcess,
  headers: Record<string, string>,
  fixture: Fixture,
  { options, profileDir }: RunContext,
): Promise<Measurement> {
  await checkAnswers(server.baseUrl, toLoad(scenario, headers, fixture));
  if (options.warmup > 0) await generateLoad(server.baseUrl, toLoad(scenario, headers, fixture), options.connections, options.warmup);
  // After the warm-up, as the pgbench step does: the statistics then count the rows the warm-up wrote, and the
  // plans PostgreSQL caches per connection (foreign-key checks among them) are made again from them. Analyzed
  // before it, a create scenario ran with the plans of near-empty tables: every foreign-key check on
  // payment_intents a sequential scan, the whole window long (bench/history/2026-11-28-issue-24.md, "Create").
  if (run.postgres) await quietDatabase(run.postgres);
  await settleMachine(options);
  const load = toLoad(scenario, headers, fixture);

  const endProfile = profileDir
    ? await startProfiling({
        child: server.child,
        profilePath: path.join(profileDir, `${slug(run.label)}--${slug(scenario.name)}.cpuprofile`),
        postgres: run.postgres,
      })
    : null;
  const stopCpuMeter = startCpuMeter(server.pid);
  const result = await generateLoad(server.baseUrl, load, options.connections, options.duration);
  const cpuCores = stopCpuMeter();
  const { chains } = load;
  const profile = endProfile ? await endProfile(chains ? chains.completed : result.requests.total) : undefined;

  return {
    target: run.label,
    scenario: scenario.name,
    ...(chains
      ? { requestsPerSecond: chains.completed / result.duration, latencyMs: chainLatency(chains.latenciesMs) }
      : {
          requestsPerSecond: result.requests.average,
          latencyMs: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
        }),
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuCores,
    ...(chains ? { chain: chainSummary(scenario, chains, result.requests.average) } : {}),
    ...(profile ? { profile } : {}),
  };
}

/** Waits, at most --settle seconds, for the machine to go quiet, and says so when it had to wait. */
export async function settleMachine(options: BenchOptions): Promise<void> {
  if (options.settle === 0) return;
  const { seconds, quiet } = await waitForQuietMachine(options.settle);
  if (!quiet) process.stderr.write(`  (the machine is still busy after ${seconds} s: measuring anyway, see CPU other)\n`);
  else if (seconds > 1) process.stderr.write(`  (waited ${seconds} s for other work on the machine to stop)\n`);
}

async function createFixture(target: string, name: FixtureName, context: FixtureContext): Promise<FixtureTiming> {
  const description = FIXTURES[name].description(context);
  const started = performance.now();
  await FIXTURES[name].create(context);
  return { target, fixture: name, description, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

function chainSummary(scenario: Scenario, chains: ChainTally, httpRequestsPerSecond: number): NonNullable<Measurement['chain']> {
  const names = [`${scenario.method} ${scenario.path}`, scenario.then!.name];
  return {
    completed: chains.completed,
    httpRequestsPerSecond,
    answers: chains.answers.map((byStatus, i) => ({ request: names[i]!, byStatus })),
  };
}

const slug = (text: string) => text.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '');
