import type { WebhooksReport } from './webhooks.js';

const VARIANT_NAMES: Record<string, string> = {
  'four-endpoints': 'four organizations, one endpoint each',
  'one-endpoint': 'one organization (per-endpoint limit)',
};

/** The webhooks step as Markdown tables, with its goals beside the figures. */
export function renderWebhooks(report: WebhooksReport): string {
  const { goals, latency } = report;
  const count = (n: number) => n.toLocaleString('en-US');
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  const throughputHeader = [
    'variant',
    'deliveries',
    'seconds',
    'deliveries/s',
    `goal ≥ ${count(goals.deliveriesPerSecond)}/s`,
    'bulk replays answered in s',
    'longest gap s',
    'CPU workers (each)',
    'CPU server',
    'CPU postgres',
    'CPU runner',
    'CPU other',
  ];
  const throughputRows = report.throughput.map((t) => [
    VARIANT_NAMES[t.variant] ?? t.variant,
    count(t.deliveries),
    t.seconds.toFixed(2),
    count(t.deliveriesPerSecond),
    verdict(t.deliveriesPerSecond >= goals.deliveriesPerSecond),
    t.queueSeconds.toFixed(2),
    t.longestGapSeconds.toFixed(2),
    `${t.cpuCores.workers.toFixed(2)} (${t.cpuCores.perWorker.map((c) => c.toFixed(2)).join(' + ')})`,
    ...[t.cpuCores.service, t.cpuCores.postgres, t.cpuCores.runner, t.cpuCores.other].map((c) => c.toFixed(2)),
  ]);
  const latencyHeader = [
    `${latency.intents} intents, one at a time, ${latency.pauseMs} ms apart`,
    'p50 ms',
    'p99 ms',
    'max ms',
    `over ${latency.slow.thresholdMs} ms`,
    `goal p99 ≤ ${goals.p99Ms} ms`,
  ];
  const latencyRows = [
    ['deposit → payment.received at the receiver', latency.receivedMs, latency.slow.received],
    ['deposit → payment.completed at the receiver', latency.completedMs, latency.slow.completed],
    ['POST simulate-deposit answered (part of both)', latency.depositAnswerMs, null],
  ] as const;
  const sessions = report.throughput
    .filter((t) => t.postgresSessions)
    .map((t) => `- ${VARIANT_NAMES[t.variant] ?? t.variant}: ${t.postgresSessions!.map((s) => `${s.name} ${s.percent}%`).join(', ')}`);
  return [
    `Webhook delivery: ${report.workers} \`connect-payments worker\` processes at their default concurrency, the server with ` +
      'CONNECT_WORKERS=off, an HTTP receiver in the runner answering 200 at once (CPU runner).',
    `Fixture: ${report.fixture}. Timed from the first bulk replay (state none, one per organization, sent at once) to ` +
      'the receiver counting every event id.',
    '',
    table(throughputHeader, throughputRows),
    '',
    table(
      latencyHeader,
      latencyRows.map(([name, p, slow]) => [
        name,
        ...[p.p50, p.p99, p.max].map((ms) => ms.toFixed(1)),
        slow === null ? '-' : String(slow),
        slow === null ? '-' : verdict(p.p99 <= goals.p99Ms),
      ]),
    ),
    '',
    `Checked: every delivery row ended delivered, each event id arrived exactly once, and each intent's ` +
      `payment.received before its payment.completed. Workers on SIGTERM: ${report.workerExits.join(', ')}.`,
    ...(sessions.length > 0 ? ['PostgreSQL sessions of the database during delivery (% of samples):', ...sessions] : []),
  ].join('\n');
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
