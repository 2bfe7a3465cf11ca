import type { Clock } from '../../domain/clock.js';
import { priceSheetProblems, snapshotOf, type PriceSheet } from './price-sheet.js';
import type { PriceSnapshot, PriceSource } from './price-source.js';

export interface HttpPriceSourceOptions {
  /** Answers GET with the rate sheet's JSON shape (`usd`, `fx`, optional `pegs`). */
  url: string;
  /** Bounds the whole request, headers and body. */
  timeoutMs: number;
  /** How long a fetched snapshot, or a failed attempt, is reused before the feed is asked again. */
  cacheSeconds: number;
  clock: Clock;
}

export interface PriceFeedFailure {
  at: Date;
  message: string;
}

/**
 * A price feed over HTTP. A good answer is reused for `cacheSeconds`; when a refresh fails (timeout, non-2xx,
 * a body that is not a valid sheet) the last good snapshot keeps being served with its old `fetchedAt`, so
 * callers see it age and stop valuing once it is too old. A failed attempt is also reused for `cacheSeconds`,
 * so an outage costs one timeout per window rather than one per request. Concurrent callers share one request.
 * A partial sheet is accepted (a feed may drop an asset for a while): valuation fails closed on what it lacks.
 * Logs nothing: `lastFailure` says why the newest attempt failed, for whoever reports health.
 */
export class HttpPriceSource implements PriceSource {
  private snapshot: PriceSnapshot | null = null;
  private attemptedAt: number | undefined;
  private inFlight: Promise<void> | undefined;
  private failure: PriceFeedFailure | undefined;

  constructor(private readonly options: HttpPriceSourceOptions) {}

  /** Why the newest attempt failed; undefined when it succeeded (or none was made yet). */
  get lastFailure(): PriceFeedFailure | undefined {
    return this.failure;
  }

  async current(): Promise<PriceSnapshot | null> {
    if (this.inFlight === undefined && this.refreshDue()) {
      this.inFlight = this.refresh().finally(() => (this.inFlight = undefined));
    }
    await this.inFlight;
    return this.snapshot;
  }

  private refreshDue(): boolean {
    return this.attemptedAt === undefined || this.options.clock.now().getTime() - this.attemptedAt >= this.options.cacheSeconds * 1000;
  }

  /** Never rejects: a failure is recorded and the previous snapshot stays. */
  private async refresh(): Promise<void> {
    try {
      const sheet = await this.fetchSheet();
      this.snapshot = snapshotOf(sheet, this.options.clock.now());
      this.failure = undefined;
    } catch (error) {
      this.failure = { at: this.options.clock.now(), message: describe(error, this.options.timeoutMs) };
    }
    this.attemptedAt = this.options.clock.now().getTime();
  }

  private async fetchSheet(): Promise<PriceSheet> {
    const response = await fetch(this.options.url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the price feed answered HTTP ${response.status}`);
    }
    const text = await response.text();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Error('the price feed answered a body that is not JSON', { cause: error });
    }
    const problems = priceSheetProblems(raw);
    if (problems.length > 0) throw new Error(`the price feed answered an invalid sheet: ${problems.join('; ')}`);
    return raw as PriceSheet;
  }
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return `the price feed did not answer within ${timeoutMs} ms`;
  if (!(error instanceof Error)) return String(error);
  // fetch() says only "fetch failed"; the reason (refused, DNS, TLS) is in its cause.
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
}
