import type { FastifyBaseLogger } from 'fastify';
import { retryDelaySeconds, signedHeaders, verdictFor, webhookBody } from '../domain/webhooks.js';
import type { Metrics } from '../metrics/metrics.js';
import type { WebhookOutcome, WebhookTransport } from '../providers/webhooks/transport.js';
import type { Database } from '../store/database.js';
import {
  claimDeliveries,
  DELIVERY_CHANNEL,
  recordAttempts,
  type AttemptRecord,
  type ClaimedDelivery,
  type ClaimedEndpoint,
} from '../store/webhook-queue.js';

export interface DispatcherSettings {
  /** Deliveries this process has in flight at most. */
  concurrency: number;
  /** Deliveries in flight to one endpoint at most, across every worker. */
  endpointConcurrency: number;
  leaseSeconds: number;
  pollSeconds: number;
  retrySchedule: readonly number[];
}

/** Endpoints served per claim: enough for a full batch, few enough that one claim stays quick. */
const ENDPOINTS_PER_CLAIM = 32;
/** How much of a receiver's error answer is kept in `last_error`. */
const ERROR_EXCERPT_CHARS = 200;
const RECORD_RETRIES = 3;
const RECORD_RETRY_DELAY_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
const endpointKey = (e: { organization_id: string; mode: string }) => `${e.organization_id}/${e.mode}`;

/**
 * Sends due webhook deliveries. Any number of dispatchers, in any number of processes, share the outbox:
 * work is claimed with row locks and leases (store/webhook-queue.ts), so each attempt is made by one of them,
 * and a delivery whose dispatcher died is taken over when its lease lapses. A dispatcher wakes on NOTIFY
 * when deliveries are queued, when its own attempts are recorded (a later event of the same object may be
 * free now) and when a retry it scheduled falls due; otherwise it polls every `pollSeconds`.
 * Delivery is at least once: receivers dedupe on the event id.
 */
export class WebhookDispatcher {
  private inFlight = 0;
  private stopped = false;
  private looping = false;
  private poked = false;
  private wake: (() => void) | null = null;
  /** When retries this dispatcher scheduled fall due (ms since the epoch); past ones are dropped when it idles. */
  private retryWakeups: number[] = [];
  private outcomes: AttemptRecord[] = [];
  private recording: Promise<void> | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private drained: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly transport: WebhookTransport,
    private readonly settings: DispatcherSettings,
    private readonly log: FastifyBaseLogger,
    /** Where attempts are counted; tests that only check deliveries leave it out. */
    private readonly metrics?: Metrics,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.db.listen(DELIVERY_CHANNEL, () => this.poke());
    this.looping = true;
    this.loopDone = this.loop().finally(() => (this.looping = false));
  }

  /** Whether the claim loop runs (readiness): false before start, after stop, or if the loop died. */
  get running(): boolean {
    return this.looping;
  }

  /** Stops claiming, lets the attempts in flight finish and records them (bounded by the transport's timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loopDone;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.unlisten?.();
  }

  private poke(): void {
    this.poked = true;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.poked = false;
      const free = this.settings.concurrency - this.inFlight;
      const claimedFrom = Date.now();
      if (free > 0 && (await this.claim(free)) > 0) continue;
      // With no free slot nothing was claimed, and the wake-ups already past wait for a slot, whose release pokes.
      await this.idle(free > 0 ? claimedFrom : Date.now());
    }
  }

  private async claim(free: number): Promise<number> {
    try {
      const { endpoints, deliveries } = await claimDeliveries(this.db, {
        endpoints: ENDPOINTS_PER_CLAIM,
        deliveries: free,
        perEndpoint: this.settings.endpointConcurrency,
        leaseSeconds: this.settings.leaseSeconds,
      });
      const byKey = new Map(endpoints.map((e) => [endpointKey(e), e]));
      for (const delivery of deliveries) this.launch(delivery, byKey.get(endpointKey(delivery))!);
      return deliveries.length;
    } catch (err) {
      this.log.error({ err, worker: 'webhooks' }, 'claiming webhook deliveries failed; trying again shortly');
      await sleep(1000);
      return 0;
    }
  }

  /**
   * Waits for a poke, the next retry wake-up or the poll. A wake-up is dropped only once a claim that began at
   * or after it found nothing more to do: the claim's database clock starts no earlier than `claimedFrom`, so
   * what fell due by then was claimable. (Dropping those merely past *now* lost a retry whose claim began a
   * millisecond before it fell due: nothing woke the dispatcher again until the poll.)
   */
  private idle(claimedFrom: number): Promise<void> {
    if (this.poked || this.stopped) return Promise.resolve();
    this.retryWakeups = this.retryWakeups.filter((at) => at > claimedFrom);
    const now = Date.now();
    const wait = Math.max(0, Math.min(this.settings.pollSeconds * 1000, ...this.retryWakeups.map((at) => at - now)));
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.poke(), wait);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private launch(delivery: ClaimedDelivery, endpoint: ClaimedEndpoint): void {
    this.inFlight++;
    // An attempt that throws still ends in an outcome: a slot that is never given back would shrink the worker.
    void this.attempt(delivery, endpoint)
      .catch((err: unknown) => this.judge(delivery, endpoint, { kind: 'error', error: err instanceof Error ? err.message : String(err) }))
      .then((outcome) => {
        this.metrics?.attempted(outcome.state, delivery.created_at);
        this.record(outcome);
      });
  }

  private async attempt(delivery: ClaimedDelivery, endpoint: ClaimedEndpoint): Promise<AttemptRecord> {
    const base = { id: delivery.id, attempt: delivery.attempt_count };
    if (!endpoint.enabled) return { ...base, state: 'dead', httpStatus: null, error: 'endpoint disabled', retryInSeconds: null };
    const now = new Date();
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && endpoint.previous_secret_expires_at! > now) secrets.push(endpoint.previous_secret);
    const body = webhookBody({ ...delivery, id: delivery.event_id, livemode: delivery.mode === 'live' });
    let outcome: WebhookOutcome;
    try {
      outcome = await this.transport.send({
        url: endpoint.url,
        mode: delivery.mode,
        headers: signedHeaders(delivery.event_id, body, secrets, now),
        body,
      });
    } catch (err) {
      outcome = { kind: 'error', error: err instanceof Error ? err.message : String(err) };
    }
    return this.judge(delivery, endpoint, outcome);
  }

  private judge(delivery: ClaimedDelivery, endpoint: ClaimedEndpoint, outcome: WebhookOutcome): AttemptRecord {
    const base = { id: delivery.id, attempt: delivery.attempt_count };
    const httpStatus = outcome.kind === 'response' ? outcome.status : null;
    const verdict = outcome.kind === 'response' ? verdictFor(outcome.status) : 'retry';
    if (verdict === 'delivered') return { ...base, state: 'delivered', httpStatus, error: null, retryInSeconds: null };
    const error =
      outcome.kind === 'error'
        ? outcome.error
        : `receiver answered ${outcome.status}${outcome.body ? `: ${outcome.body.slice(0, ERROR_EXCERPT_CHARS)}` : ''}`;
    const retryIn = verdict === 'gone' ? null : retryDelaySeconds(this.settings.retrySchedule, delivery.attempt_count);
    // The URL's origin only: a path or query may carry the partner's own token.
    const context = {
      worker: 'webhooks',
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      organization_id: delivery.organization_id,
      mode: delivery.mode,
      attempt: delivery.attempt_count,
      destination: URL.canParse(endpoint.url) ? new URL(endpoint.url).origin : '(not a URL)',
      error,
    };
    if (retryIn === null) {
      this.log.warn(context, verdict === 'gone' ? 'webhook receiver answered 410: no more attempts' : 'webhook delivery is dead');
      return { ...base, state: 'dead', httpStatus, error: verdict === 'gone' ? `${error} (410: no more attempts)` : error, retryInSeconds: null };
    }
    this.log.info({ ...context, retry_in_seconds: Math.round(retryIn) }, 'webhook attempt failed; will retry');
    return { ...base, state: 'failed', httpStatus, error, retryInSeconds: retryIn };
  }

  /** Outcomes are written in batches: whatever arrived while the previous write ran goes in the next one. */
  private record(outcome: AttemptRecord): void {
    this.outcomes.push(outcome);
    this.recording ??= this.writeOutcomes().finally(() => (this.recording = null));
  }

  private async writeOutcomes(): Promise<void> {
    while (this.outcomes.length > 0) {
      const batch = this.outcomes.splice(0);
      await this.persist(batch);
      // The database dated each retry from its own write, which came before this moment: waking at
      // now + delay is never early (an early wake-up would find nothing due and sleep until the next poll).
      const written = Date.now();
      for (const outcome of batch) {
        // Later retries are found by the regular poll.
        if (outcome.retryInSeconds !== null && outcome.retryInSeconds < this.settings.pollSeconds) {
          // Whole milliseconds, rounded up: the clocks compared with it (Date.now(), PGlite's now()) have no finer grain.
          this.retryWakeups.push(Math.ceil(written + outcome.retryInSeconds * 1000));
        }
      }
      this.inFlight -= batch.length;
      if (this.inFlight === 0) this.drained?.();
      this.poke();
    }
  }

  private async persist(batch: AttemptRecord[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await recordAttempts(this.db, batch);
        return;
      } catch (err) {
        if (attempt >= RECORD_RETRIES) {
          // The leases lapse and the deliveries are attempted again: a duplicate, never a loss.
          this.log.error({ err, worker: 'webhooks', deliveries: batch.length }, 'recording webhook outcomes failed');
          return;
        }
        await sleep(RECORD_RETRY_DELAY_MS);
      }
    }
  }
}
