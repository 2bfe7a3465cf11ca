import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { KeyMode } from '../domain/api-keys.js';
import { TRANSACTION_ATTEMPTS, type Database } from '../store/database.js';
import { quarantinedCounts } from '../store/deposit-quarantine.js';
import { openLivePayouts, type OpenLivePayouts } from '../store/payouts.js';
import { latestResults, type ReconciliationRow } from '../store/reconciliation.js';
import { treasuryStatus, type TreasuryStatusRow } from '../store/treasury.js';
import { Decimal } from '../domain/money.js';
import { RECONCILIATION_STATUSES } from '../domain/reconciliation.js';
import { freeOwners } from '../store/solana-owners.js';

const METRIC_PREFIX = 'connect_';

/** Which limit a 429 rate_limited answer came from: a key's budget, or an address's failed authentications. */
export type RateLimit = 'key' | 'auth_failures';
export type AttemptOutcome = 'delivered' | 'failed' | 'dead';

let processRegistry: Registry | undefined;

/**
 * CPU, memory, event loop and GC belong to the process, not to a context: collected once (each collection
 * starts observers that are never stopped) and shown by every context's registry.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: METRIC_PREFIX });
  }
  return processRegistry;
}

/** Requests and statements: from a cached read to a request that should have timed out. */
const SECONDS_FAST = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** From a receiver that answers at once to the last retry of the default schedule, about three days later. */
const SECONDS_DELIVERY = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 7200, 21600, 43200, 86400, 172800, 259200];

/**
 * One registry per context, never prom-client's global one: tests and several apps in one process each
 * count their own. The gauges (pool, webhook backlog) are read when scraped.
 */
export class Metrics {
  private readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly statementDuration: Histogram<'kind'>;
  private readonly idempotencyReplays: Counter;
  private readonly rateLimitRejections: Counter<'limit'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookDelivery: Histogram;
  private readonly depositsCredited: Counter<'mode'>;
  private readonly creditFailures: Counter<'network'>;
  private readonly watcherPasses: Counter<'network' | 'outcome'>;
  private readonly solanaBudgetSpent: Counter<'network'>;
  private readonly watcherLastSuccess: Gauge<'network'>;
  private readonly liveNetwork: Gauge<'network' | 'payouts'>;

  constructor(db: Database) {
    const own = new Registry();
    const registers = [own];
    this.httpRequests = new Counter({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: 'HTTP requests answered, by method, route pattern (unmatched: no route) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'Time from receiving a request to finishing its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS_FAST,
      registers,
    });
    this.statementDuration = new Histogram({
      name: `${METRIC_PREFIX}db_statement_duration_seconds`,
      help: 'Database time: kind=query per statement (inside transactions too), kind=transaction per whole transaction.',
      labelNames: ['kind'],
      buckets: SECONDS_FAST,
      registers,
    });
    new Gauge({
      name: `${METRIC_PREFIX}db_pool_connections`,
      help: 'PostgreSQL pool connections by state: in_use, idle, waiting (requests queued for a connection). Absent on PGlite.',
      labelNames: ['state'],
      registers,
      collect() {
        const pool = db.connections?.();
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.total - pool.idle);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
    let conflictsCounted = 0;
    new Counter({
      name: `${METRIC_PREFIX}db_transaction_conflicts_total`,
      help: `Transaction attempts the database aborted for a deadlock or a serialization failure; each runs again, up to ${TRANSACTION_ATTEMPTS} attempts in all.`,
      registers,
      collect() {
        const conflicts = db.conflicts();
        this.inc(conflicts - conflictsCounted);
        conflictsCounted = conflicts;
      },
    });
    this.idempotencyReplays = new Counter({
      name: `${METRIC_PREFIX}idempotency_replays_total`,
      help: 'IDEM requests answered with the response stored under their Idempotency-Key.',
      registers,
    });
    this.rateLimitRejections = new Counter({
      name: `${METRIC_PREFIX}rate_limit_rejections_total`,
      help: "429 rate_limited answers, by limit: key (the key's requests per second), auth_failures (an address's failed authentications).",
      labelNames: ['limit'],
      registers,
    });
    new Gauge({
      name: `${METRIC_PREFIX}webhook_deliveries_outstanding`,
      help: 'Webhook deliveries still to be made, in the whole database: pending (not attempted yet), failed (to be retried).',
      labelNames: ['state'],
      registers,
      async collect() {
        let rows: { state: string; count: number }[];
        try {
          // The partial index on next_attempt_at IS NOT NULL holds exactly the outstanding rows.
          rows = await db.query(`SELECT state, count(*)::int AS count FROM webhook_deliveries WHERE next_attempt_at IS NOT NULL GROUP BY state`);
        } catch {
          // Without the database the gauge is absent, not stale, and the rest of the scrape still answers.
          this.reset();
          return;
        }
        this.set({ state: 'pending' }, rows.find((row) => row.state === 'pending')?.count ?? 0);
        this.set({ state: 'failed' }, rows.find((row) => row.state === 'failed')?.count ?? 0);
      },
    });
    /** Read at scrape; absent (not stale) for a scrape during which the database did not answer. */
    const openPayoutsGauge = (name: string, help: string, value: (row: OpenLivePayouts) => number) =>
      new Gauge({
        name: `${METRIC_PREFIX}${name}`,
        help,
        labelNames: ['network', 'status'],
        registers,
        async collect() {
          const rows = await openLivePayouts(db).catch(() => []);
          this.reset();
          for (const row of rows) this.set({ network: row.network, status: row.status }, value(row));
        },
      });
    openPayoutsGauge('live_payouts_open', 'Live payouts not settled yet, in the whole database, by network and status (pending: not broadcast yet; processing: broadcast, not confirmed).', (row) => row.count);
    openPayoutsGauge(
      'live_payouts_oldest_open_seconds',
      'Age of the oldest live payout not settled yet, by network and status: a processing one growing old is stuck (fees above its cap).',
      (row) => row.oldest_seconds,
    );
    this.webhookAttempts = new Counter({
      name: `${METRIC_PREFIX}webhook_delivery_attempts_total`,
      help: 'Webhook delivery attempts made by this process, by outcome: delivered, failed (retried later), dead (no more attempts).',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDelivery = new Histogram({
      name: `${METRIC_PREFIX}webhook_delivery_seconds`,
      help: "From an event's creation to its receiver's 2xx, for deliveries this process made.",
      buckets: SECONDS_DELIVERY,
      registers,
    });
    this.depositsCredited = new Counter({
      name: `${METRIC_PREFIX}deposits_credited_total`,
      help: 'Deposits credited (committed), by mode; an on-chain deposit seen again is not counted twice.',
      labelNames: ['mode'],
      registers,
    });
    this.creditFailures = new Counter({
      name: `${METRIC_PREFIX}deposit_credit_failures_total`,
      help: "Credits of chain deposits that failed (rolled back; the deposit is quarantined and tried again later), by network.",
      labelNames: ['network'],
      registers,
    });
    new Gauge({
      name: `${METRIC_PREFIX}deposits_quarantined`,
      help: 'Chain deposits whose credit failed and that are not credited yet, in the whole database, by network; absent for networks with none.',
      labelNames: ['network'],
      registers,
      async collect() {
        const rows = await quarantinedCounts(db).catch(() => []);
        this.reset();
        for (const row of rows) this.set({ network: row.network }, row.count);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}solana_deposit_owners_free`,
      help: 'Owner keys imported for Solana deposit addresses and not handed out yet, by network; at 0, new live Solana addresses are refused.',
      labelNames: ['network'],
      registers,
      async collect() {
        const free = await freeOwners(db).catch(() => new Map<string, number>());
        this.reset();
        for (const [network, count] of free) this.set({ network }, count);
      },
    });
    this.watcherPasses = new Counter({
      name: `${METRIC_PREFIX}chain_watcher_passes_total`,
      help: "Passes of this process's chain watchers, by network and outcome: ok, or failed (a node that did not answer, another chain behind the URL; retried at the next poll).",
      labelNames: ['network', 'outcome'],
      registers,
    });
    this.solanaBudgetSpent = new Counter({
      name: `${METRIC_PREFIX}solana_watcher_budget_spent_total`,
      help: 'Solana watcher passes that spent their call budget (CONNECT_SOLANA_MAX_CALLS) with due addresses left for the next pass, by network.',
      labelNames: ['network'],
      registers,
    });
    this.watcherLastSuccess = new Gauge({
      name: `${METRIC_PREFIX}chain_watcher_last_success_timestamp_seconds`,
      help: "When a chain watcher of this process last finished a pass without error, by network (Unix time): a network falling behind shows here first.",
      labelNames: ['network'],
      registers,
    });
    this.liveNetwork = new Gauge({
      name: `${METRIC_PREFIX}live_network`,
      help: 'The live networks this deployment serves (1), by network and whether its payouts can go out (payouts: yes, no: deposits only).',
      labelNames: ['network', 'payouts'],
      registers,
    });
    /** The latest reconciliation results (docs/reconciliation.md), read at scrape; absent while the database does not answer. */
    const reconciliationGauge = (name: string, help: string, labelNames: string[], set: (gauge: Gauge, row: ReconciliationRow) => void) =>
      new Gauge({
        name: `${METRIC_PREFIX}${name}`,
        help,
        labelNames,
        registers,
        async collect() {
          const rows = await latestResults(db).catch(() => []);
          this.reset();
          for (const row of rows) set(this, row);
        },
      });
    reconciliationGauge(
      'reconciliation_drift',
      'On-chain balance less what the ledger owes, by live network and asset, in the asset (a float near the exact decimal of GET /admin/v1/reconciliation); negative: a shortfall. Absent while the chain is unavailable.',
      ['network', 'asset'],
      (gauge, row) => row.drift !== null && gauge.set({ network: row.network, asset: row.asset }, Number(row.drift)),
    );
    reconciliationGauge(
      'reconciliation_status',
      'The latest reconciliation of each live network and asset: 1 for its status (ok, surplus, shortfall, unavailable), 0 for the others.',
      ['network', 'asset', 'status'],
      (gauge, row) => {
        for (const status of RECONCILIATION_STATUSES) gauge.set({ network: row.network, asset: row.asset, status }, status === row.status ? 1 : 0);
      },
    );
    reconciliationGauge(
      'reconciliation_last_run_timestamp_seconds',
      'When the chain was last read for a reconciliation of this network and asset (Unix time), by whichever process: a value that stops growing is a job that no longer runs or a chain that stays unavailable.',
      ['network', 'asset'],
      (gauge, row) => row.reconciled_at !== null && gauge.set({ network: row.network, asset: row.asset }, row.reconciled_at.getTime() / 1000),
    );
    reconciliationGauge(
      'reconciliation_drifting_addresses',
      'Deposit addresses whose on-chain balance differs from what was credited to them, by live network and asset. Absent while the chain is unavailable.',
      ['network', 'asset'],
      (gauge, row) => row.status !== 'unavailable' && gauge.set({ network: row.network, asset: row.asset }, row.details.addresses.length + row.details.addresses_left_out),
    );
    /** The treasury's latest plans (docs/treasury.md), read at scrape; absent while the database does not answer. */
    const treasuryGauge = (name: string, help: string, set: (gauge: Gauge, row: TreasuryStatusRow, labels: { network: string; asset: string }) => void) =>
      new Gauge({
        name: `${METRIC_PREFIX}${name}`,
        help,
        labelNames: ['network', 'asset'],
        registers,
        async collect() {
          const rows = await treasuryStatus(db).catch(() => []);
          this.reset();
          for (const row of rows) set(this, row, { network: row.network, asset: row.asset });
        },
      });
    treasuryGauge(
      'treasury_float',
      "The hot float at the latest treasury plan: what the hot wallet held of the asset less what live payouts not sent yet owe, by network and asset, in the asset (a float near the exact decimal of GET /admin/v1/treasury/status).",
      (gauge, row, labels) => row.summary && gauge.set(labels, Number(row.summary.hot_wallet.float)),
    );
    treasuryGauge(
      'treasury_float_low',
      'Whether the hot float was below its low-water mark (float_low) at the latest treasury plan: 1 low, 0 not.',
      (gauge, row, labels) => row.float_level !== null && gauge.set(labels, row.float_level === 'low' ? 1 : 0),
    );
    treasuryGauge(
      'treasury_sweepable',
      'What the latest treasury plan would sweep from deposit addresses (to the hot wallet and to cold storage), by network and asset, in the asset.',
      (gauge, row, labels) => row.summary && gauge.set(labels, new Decimal(row.summary.planned.to_hot_wallet).plus(row.summary.planned.to_cold_storage).toNumber()),
    );
    treasuryGauge(
      'treasury_last_plan_timestamp_seconds',
      'When a treasury plan was last made for this network and asset (Unix time): a value that stops growing is a job that no longer runs or a chain that cannot be read.',
      (gauge, row, labels) => row.planned_at !== null && gauge.set(labels, row.planned_at.getTime() / 1000),
    );
    this.registry = Registry.merge([processMetrics(), own]);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every metric. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  replayed(): void {
    this.idempotencyReplays.inc();
  }

  rateLimited(limit: RateLimit): void {
    this.rateLimitRejections.inc({ limit });
  }

  credited(mode: KeyMode, count = 1): void {
    this.depositsCredited.inc({ mode }, count);
  }

  creditFailed(network: string): void {
    this.creditFailures.inc({ network });
  }

  /** One pass of a chain watcher ended: `ok` when it threw nothing. */
  watcherPassed(network: string, ok: boolean): void {
    this.watcherPasses.inc({ network, outcome: ok ? 'ok' : 'failed' });
    if (ok) this.watcherLastSuccess.set({ network }, Date.now() / 1000);
  }

  /** A Solana watcher pass stopped at its call budget with due addresses left. */
  solanaBudgetHit(network: string): void {
    this.solanaBudgetSpent.inc({ network });
  }

  /** The live networks served, as configured at start: fixed for the life of the process. */
  serveLive(networks: readonly { network: string; payouts: boolean }[]): void {
    this.liveNetwork.reset();
    for (const { network, payouts } of networks) this.liveNetwork.set({ network, payouts: payouts ? 'yes' : 'no' }, 1);
  }

  attempted(outcome: AttemptOutcome, eventCreatedAt: Date): void {
    this.webhookAttempts.inc({ outcome });
    // A business clock ahead of this one (tests move it) must not make a negative latency.
    if (outcome === 'delivered') this.webhookDelivery.observe(Math.max(0, Date.now() - eventCreatedAt.getTime()) / 1000);
  }
}
