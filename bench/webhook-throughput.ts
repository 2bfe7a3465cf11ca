import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Share } from './cpu-profile.js';
import { startCpuMeter } from './cpu-usage.js';
import { sampleActivity } from './pg-activity.js';
import { withClient } from './postgres.js';
import { createOrganization, send } from './service.js';
import { insertEventFixture, type EventFixture } from './webhook-fixture.js';
import type { Arrival } from './webhook-receiver.js';
import type { WebhookStage } from './webhooks.js';

/** Without a single new delivery for this long, the run is stuck: it fails rather than wait forever. */
const STALL_MS = 60_000;
/** How long the workers get, once the receiver has everything, to record the last outcomes. */
const SETTLE_MS = 30_000;

export interface ThroughputResult {
  variant: string;
  endpoints: number;
  deliveries: number;
  /** From the first bulk replay call to the receiver's last new event id. */
  seconds: number;
  deliveriesPerSecond: number;
  /** How long the bulk replays took to answer (they ran at once, one per organization). */
  queueSeconds: number;
  /** The longest span in which the receiver got nothing new, from the first replay call on: stalls show here. */
  longestGapSeconds: number;
  fixtureSeconds: number;
  /** Cores busy during the measured span (1.00 = one core). */
  cpuCores: { workers: number; perWorker: number[]; service: number; postgres: number; runner: number; other: number };
  /** With --profile: what the database's sessions were doing (pg_stat_activity every 20 ms). */
  postgresSessions?: Share[];
}

/** A variant's organizations, endpoints and events, ready to be queued. */
export interface PreparedVariant {
  name: string;
  organizationIds: string[];
  fixture: EventFixture;
}

/** Creates the organizations, points each one's test endpoint at its own path of the receiver, inserts the events. */
export async function prepareVariant(stage: WebhookStage, name: string, endpoints: number, events: number): Promise<PreparedVariant> {
  const organizationIds: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const { id } = await createOrganization(stage.baseUrl, stage.adminToken, `Benchmark webhooks ${name} ${i + 1}`);
    const url = `${stage.receiver.baseUrl}/${name}/${i + 1}`;
    await send('PUT', `${stage.baseUrl}/admin/v1/organizations/${id}/webhooks/test`, stage.adminToken, { url });
    organizationIds.push(id);
  }
  const fixture = await insertEventFixture(stage.databaseUrl, organizationIds, events);
  return { name, organizationIds, fixture };
}

/**
 * Queues every event of the variant with one bulk replay per organization (state none, all at once) and times
 * until the receiver has had each event id; then checks that every delivery row ended `delivered`, that no
 * event id arrived twice, and that each intent's payment_received arrived before its completed.
 */
export async function measureThroughput(stage: WebhookStage, variant: PreparedVariant): Promise<ThroughputResult> {
  const { receiver, workers } = stage;
  const expected = new Set(variant.fixture.pairs.flat());
  let arrived = 0;
  let lastArrival = 0;
  let longestGap = 0;
  let allArrived: () => void = () => {};
  const done = new Promise<void>((resolve) => (allArrived = resolve));
  const stopListening = receiver.onArrival((arrival: Arrival) => {
    if (!expected.has(arrival.eventId) || receiver.deliveriesByEventId.get(arrival.eventId) !== 1) return;
    longestGap = Math.max(longestGap, arrival.at - lastArrival);
    lastArrival = arrival.at;
    if (++arrived === expected.size) allArrived();
  });

  let stopSampling = stage.profile ? await sampleActivity(stage.adminUrl, stage.databaseName) : null;
  const workerPids = workers.map((w) => w.pid);
  const meters = {
    workers: startCpuMeter(workerPids),
    each: workerPids.map((pid) => startCpuMeter(pid)),
    service: startCpuMeter(stage.servicePid),
  };
  const started = performance.now();
  lastArrival = started;
  try {
    const range = { from: variant.fixture.from.toISOString(), to: variant.fixture.to.toISOString(), state: 'none' };
    const replays = variant.organizationIds.map((id) =>
      send<{ queued: number }>('POST', `${stage.baseUrl}/admin/v1/organizations/${id}/webhooks/test/replay`, stage.adminToken, range),
    );
    const queued = (await Promise.all(replays)).reduce((sum, r) => sum + r.queued, 0);
    const queueSeconds = (performance.now() - started) / 1000;
    if (queued !== expected.size) throw new Error(`the bulk replays queued ${queued} deliveries, not ${expected.size}`);
    while (arrived < expected.size) {
      const stalled = await Promise.race([done.then(() => false), sleep(1000).then(() => performance.now() - lastArrival > STALL_MS)]);
      if (stalled) throw new Error(`no new delivery for ${STALL_MS / 1000} s: ${arrived} of ${expected.size} arrived`);
    }
    const seconds = (lastArrival - started) / 1000;
    const all = meters.workers();
    const perWorker = meters.each.map((stop) => stop().server);
    const service = meters.service().server;
    const postgresSessions = stopSampling ? await stopSampling() : undefined;
    stopSampling = null;
    await verify(stage, variant);
    return {
      variant: variant.name,
      endpoints: variant.organizationIds.length,
      deliveries: expected.size,
      seconds: round(seconds, 2),
      deliveriesPerSecond: Math.round(expected.size / seconds),
      queueSeconds: round(queueSeconds, 2),
      longestGapSeconds: round(longestGap / 1000, 2),
      fixtureSeconds: variant.fixture.seconds,
      cpuCores: {
        workers: all.server,
        perWorker,
        service,
        postgres: all.postgres,
        runner: all.loadGenerator,
        other: round(Math.max(0, all.other - service), 2),
      },
      ...(postgresSessions ? { postgresSessions } : {}),
    };
  } finally {
    stopListening();
    await stopSampling?.().catch(() => {});
  }
}

/** Fails the bench unless every delivery of the variant ended `delivered`, once, in per-object order. */
async function verify(stage: WebhookStage, variant: PreparedVariant): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  let states: Record<string, number> = {};
  // The receiver counts a delivery before its worker records the outcome: give the last ones time to land.
  while (Date.now() < deadline) {
    states = await deliveryStates(stage.databaseUrl, variant.organizationIds);
    if (Object.keys(states).every((state) => state === 'delivered')) break;
    await sleep(200);
  }
  const expected = variant.fixture.pairs.length * 2;
  const summary = Object.entries(states).map(([state, n]) => `${state} × ${n}`).join(', ');
  if (states.delivered !== expected || Object.keys(states).length !== 1) {
    throw new Error(`${variant.name}: the delivery rows are ${summary || 'missing'}, not ${expected} delivered`);
  }
  const { deliveriesByEventId, firstRank } = stage.receiver;
  const duplicates = variant.fixture.pairs.flat().filter((id) => deliveriesByEventId.get(id) !== 1);
  if (duplicates.length > 0) {
    throw new Error(`${variant.name}: ${duplicates.length} event ids did not arrive exactly once (${duplicates[0]}: ${deliveriesByEventId.get(duplicates[0]!) ?? 0})`);
  }
  const outOfOrder = variant.fixture.pairs.filter(([received, completed]) => firstRank.get(received)! > firstRank.get(completed)!);
  if (outOfOrder.length > 0) throw new Error(`${variant.name}: ${outOfOrder.length} intents had payment.completed before payment.received`);
}

async function deliveryStates(databaseUrl: string, organizationIds: readonly string[]): Promise<Record<string, number>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ state: string; n: number }>(
      'SELECT state, count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ANY($1::uuid[]) GROUP BY state',
      [organizationIds],
    );
    return Object.fromEntries(rows.map((r) => [r.state, r.n]));
  });
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
