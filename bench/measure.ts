import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startServer, type ServerProcess } from './child.js';
import type { Cleanup } from './cleanup.js';
import { startCpuMeter, waitForQuietMachine, type CpuCores } from './cpu-usage.js';
import { checkAnswers, generateLoad, toRequest } from './load.js';
import type { BenchOptions } from './options.js';
import { startProfiling, type ProfileReport } from './profiling.js';
import type { Fixture, Scenario } from './scenarios.js';

const NO_FIXTURE: Fixture = { intent_id: '', intent_ids: [] };
import { quietDatabase } from './postgres.js';
import { createFixture, createPartnerKey } from './service.js';
import type { Target } from './targets.js';

export interface Measurement {
  /** The target's name, with a suffix when it runs twice (the baseline). */
  target: string;
  scenario: string;
  /** Mean of autocannon's one-second samples. */
  requestsPerSecond: number;
  /** autocannon records whole milliseconds, so percentiles of sub-millisecond answers read 0 or 1. */
  latencyMs: { average: number; p50: number; p99: number };
  requests: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  cpuCores: CpuCores;
  profile?: ProfileReport;
}

export interface TargetRun {
  label: string;
  target: Target;
  /** How this run reaches its database: DATABASE_URL or CONNECT_DATA_DIR. */
  databaseEnv: Record<string, string>;
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

/** Starts the target's server, prepares a key if it is the service, measures each scenario, stops it. */
export async function measureTarget(run: TargetRun, context: RunContext): Promise<Measurement[]> {
  const adminToken = `adm_bench_${randomBytes(16).toString('hex')}`;
  const server = await startServer({
    entry: run.target.entry,
    cwd: context.repoRoot,
    env: { ...run.target.env, ...run.databaseEnv, CONNECT_ADMIN_TOKEN: adminToken },
    logFile: path.join(context.workDir, `${slug(run.label)}.log`),
    ...(context.profileDir ? { preload: './bench/probe.ts' } : {}),
  });
  const stop = context.cleanup.add(server.stop);
  try {
    const partnerKey = run.target.database === 'none' ? null : await createPartnerKey(server.baseUrl, adminToken);
    const headers: Record<string, string> = partnerKey ? { authorization: `Bearer ${partnerKey}` } : {};
    const fixture: Fixture =
      partnerKey && run.target.scenarios.some((s) => s.path.includes('{')) ? await createFixture(server.baseUrl, partnerKey) : NO_FIXTURE;
    const measurements: Measurement[] = [];
    for (const template of run.target.scenarios) {
      const scenario = { ...template, path: template.path.replace('{intent_id}', fixture.intent_id) };
      const measurement = await measureScenario(run, scenario, server, headers, fixture, context);
      process.stderr.write(`  ${run.label} | ${scenario.name}: ${Math.round(measurement.requestsPerSecond)} req/s\n`);
      measurements.push(measurement);
    }
    return measurements;
  } finally {
    await stop();
  }
}

async function measureScenario(
  run: TargetRun,
  scenario: Scenario,
  server: ServerProcess,
  headers: Record<string, string>,
  fixture: Fixture,
  { options, profileDir }: RunContext,
): Promise<Measurement> {
  const request = toRequest(scenario, headers, fixture);
  await checkAnswers(server.baseUrl, request);
  if (run.postgres) await quietDatabase(run.postgres);
  if (options.settle > 0) {
    const { seconds, quiet } = await waitForQuietMachine(options.settle);
    if (!quiet) process.stderr.write(`  (the machine is still busy after ${seconds} s: measuring anyway, see CPU other)\n`);
    else if (seconds > 1) process.stderr.write(`  (waited ${seconds} s for other work on the machine to stop)\n`);
  }
  if (options.warmup > 0) await generateLoad(server.baseUrl, request, options.connections, options.warmup);

  const endProfile = profileDir
    ? await startProfiling({
        child: server.child,
        profilePath: path.join(profileDir, `${slug(run.label)}--${slug(scenario.name)}.cpuprofile`),
        postgres: run.postgres,
      })
    : null;
  const stopCpuMeter = startCpuMeter(server.pid);
  const result = await generateLoad(server.baseUrl, request, options.connections, options.duration);
  const cpuCores = stopCpuMeter();
  const profile = endProfile ? await endProfile(result.requests.total) : undefined;

  return {
    target: run.label,
    scenario: scenario.name,
    requestsPerSecond: result.requests.average,
    latencyMs: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuCores,
    ...(profile ? { profile } : {}),
  };
}

const slug = (text: string) => text.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '');
