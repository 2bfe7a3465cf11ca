import type { Share } from './cpu-profile.js';
import type { FixtureTiming, Measurement } from './measure.js';
import type { PgbenchResult } from './pgbench.js';
import { FLOOR_STEP } from './floor.js';
import { CREATE_INTENT, GET_INTENT, HEALTH, LIST_EVENTS } from './scenarios.js';

/** The baseline: the mean req/s of the bare runs (one before the service targets, one after). */
export function baselineRequestsPerSecond(measurements: readonly Measurement[]): number {
  const bare = measurements.filter((m) => m.target.startsWith('bare'));
  return bare.reduce((sum, m) => sum + m.requestsPerSecond, 0) / bare.length;
}

/** A Markdown table, pasted as is into a run's file in bench/history/. */
export function renderTable(measurements: readonly Measurement[], baseline: number): string {
  const header = [
    'target',
    'scenario',
    'req/s',
    'vs bare',
    'avg ms',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'server µs CPU/req',
    'postgres µs CPU/req',
    'CPU server',
    'CPU postgres',
    'CPU autocannon',
    'CPU other',
  ];
  const rows = measurements.map((m) => [
    m.target,
    m.scenario,
    Math.round(m.requestsPerSecond).toLocaleString('en-US'),
    `${((m.requestsPerSecond / baseline) * 100).toFixed(1)}%`,
    m.latencyMs.average.toFixed(2),
    String(m.latencyMs.p50),
    String(m.latencyMs.p99),
    String(m.non2xx),
    String(m.errors),
    // CPU time per request drifts less with a noisy neighbour than req/s does.
    String(Math.round((m.cpuCores.server * 1e6) / m.requestsPerSecond)),
    String(Math.round((m.cpuCores.postgres * 1e6) / m.requestsPerSecond)),
    ...[m.cpuCores.server, m.cpuCores.postgres, m.cpuCores.loadGenerator, m.cpuCores.other].map((c) => c.toFixed(2)),
  ]);
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/**
 * Issue 24's goals: each of these service scenarios as a share of its own ceiling, measured in the same run: the
 * pgbench variant running the same database work (pgbench.ts), or for GET /health the bare Fastify route.
 */
const GOALS = [
  { scenario: GET_INTENT.name, goal: 0.35 },
  { scenario: LIST_EVENTS.name, goal: 0.25 },
  { scenario: CREATE_INTENT.name, goal: 1.0 },
  { scenario: HEALTH.name, goal: 0.5 },
];

export interface CeilingRatio {
  target: string;
  scenario: string;
  requestsPerSecond: number;
  /** `bare` or `pgbench <variant>`. */
  ceiling: string;
  /** The ceiling's req/s or TPS; null when its step did not run. */
  ceilingPerSecond: number | null;
  ratio: number | null;
  /** The goal for the service; null on the floor step's rows, which are not the service. */
  goal: number | null;
}

/**
 * The scenarios that have a goal, measured on the `targets` given (those on PostgreSQL, for pgbench's sake), and the
 * floor step's rows against the same ceilings.
 */
export function ceilingRatios(
  measurements: readonly Measurement[],
  pgbench: readonly PgbenchResult[] | null,
  baseline: number,
  targets: readonly string[],
): CeilingRatio[] {
  const ratios: CeilingRatio[] = [];
  for (const m of measurements) {
    const goal = GOALS.find((g) => g.scenario === m.scenario);
    const floor = m.target === FLOOR_STEP.name;
    if (!goal || !(floor || targets.includes(m.target))) continue;
    const variant = goal.scenario === HEALTH.name ? null : (pgbench?.find((r) => r.scenario === m.scenario) ?? null);
    const ceilingPerSecond = goal.scenario === HEALTH.name ? baseline : (variant?.transactionsPerSecond ?? null);
    ratios.push({
      target: m.target,
      scenario: m.scenario,
      requestsPerSecond: Math.round(m.requestsPerSecond),
      ceiling: goal.scenario === HEALTH.name ? 'bare' : variant ? `pgbench ${variant.variant}` : 'pgbench (step not run)',
      ceilingPerSecond: ceilingPerSecond === null ? null : Math.round(ceilingPerSecond),
      ratio: ceilingPerSecond ? Math.round((m.requestsPerSecond / ceilingPerSecond) * 1000) / 1000 : null,
      goal: floor ? null : goal.goal,
    });
  }
  return ratios;
}

export function renderCeilingRatios(ratios: readonly CeilingRatio[]): string {
  const header = ['target', 'scenario', 'req/s', 'ceiling', 'ceiling req/s or TPS', 'ratio', 'goal (issue 24)'];
  const rows = ratios.map((r) => [
    r.target,
    r.scenario,
    r.requestsPerSecond.toLocaleString('en-US'),
    r.ceiling,
    r.ceilingPerSecond?.toLocaleString('en-US') ?? '-',
    r.ratio?.toFixed(2) ?? '-',
    r.goal === null ? '-' : `≥ ${r.goal.toFixed(2)}${r.ratio === null ? '' : r.ratio >= r.goal ? ' (met)' : ' (not met)'}`,
  ]);
  return ['Each scenario against its own ceiling, same run:', ...[header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`)].join('\n');
}

/** The answers to each request of the chained scenarios, by status code. */
export function renderChains(measurements: readonly Measurement[]): string {
  const lines = ['Chained scenarios, answers by status code:'];
  for (const m of measurements) {
    if (!m.chain) continue;
    const answers = m.chain.answers.map(({ request, byStatus }) => {
      const counts = Object.entries(byStatus).map(([status, n]) => `${status} × ${n}`);
      return `${request}: ${counts.join(', ') || 'none'}`;
    });
    lines.push(`- ${m.target}: ${m.chain.completed} pairs, ${Math.round(m.chain.httpRequestsPerSecond)} HTTP req/s; ${answers.join('; ')}`);
  }
  return lines.join('\n');
}

/** The fixtures each target created before its scenarios, and how long each took (setup, not measured load). */
export function renderFixtures(fixtures: readonly FixtureTiming[]): string {
  return ['Fixtures:', ...fixtures.map((f) => `- ${f.target}, ${f.fixture}: ${f.description}; created in ${f.seconds} s`)].join('\n');
}

/** What each --profile measurement found, as plain text. */
export function renderProfiles(measurements: readonly Measurement[]): string {
  const sections: string[] = [];
  for (const m of measurements) {
    if (!m.profile) continue;
    const { cpu, statementsPerRequest, postgresSessions } = m.profile;
    const lines = [`## ${m.target} | ${m.scenario}`, `profile: ${cpu.file}`, `main thread idle: ${cpu.idlePercent}%`];
    lines.push('inclusive time by area (% of busy time):', ...cpu.byArea.map(share));
    lines.push('self time by origin (% of busy time):', ...cpu.byOrigin.map(share));
    lines.push('top functions by self time:', ...cpu.topFunctions.map(share));
    const statements = Object.entries(statementsPerRequest);
    if (statements.length > 0) {
      lines.push('SQL statements per request:', ...statements.map(([text, perRequest]) => `  ${perRequest.toFixed(3)}  ${text}`));
    }
    if (postgresSessions) {
      lines.push('PostgreSQL sessions of the service (% of samples):', ...postgresSessions.map(share));
    }
    sections.push(lines.join('\n'));
  }
  return sections.join('\n\n');
}

const share = (s: Share) => `  ${s.percent.toFixed(1).padStart(5)}  ${s.name}`;
