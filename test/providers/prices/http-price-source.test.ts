import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPriceSource } from '../../../src/providers/prices/http-price-source.js';
import { ManualClock } from '../../support/clock.js';

const SHEET = { usd: { USDC: '1', ETH: '3150.25' }, fx: { USD: '1', EUR: '0.92' }, pegs: { USDC: 'USD' } };

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A real feed on 127.0.0.1 whose behaviour each test swaps; it counts the requests it received. */
class FakeFeed {
  requests = 0;
  handler: Handler = answer(200, SHEET);
  private readonly server = http.createServer((req, res) => {
    this.requests += 1;
    this.handler(req, res);
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/prices`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function answer(status: number, body: unknown): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

const feeds: FakeFeed[] = [];
afterEach(async () => {
  await Promise.all(feeds.splice(0).map((feed) => feed.stop()));
});

async function setUp(timeoutMs = 1000) {
  const feed = new FakeFeed();
  feeds.push(feed);
  const clock = new ManualClock(new Date('2025-01-01T00:00:00Z'));
  const source = new HttpPriceSource({ url: await feed.start(), timeoutMs, cacheSeconds: 30, clock });
  return { feed, clock, source };
}

describe('the HTTP price feed', () => {
  it('serves the fetched sheet dated by the clock at the fetch', async () => {
    const { source } = await setUp();
    const snapshot = await source.current();
    expect(snapshot).toEqual({ fetchedAt: new Date('2025-01-01T00:00:00Z'), ...SHEET });
    expect(source.lastFailure).toBeUndefined();
  });

  it('reuses a snapshot for cacheSeconds, then asks again', async () => {
    const { feed, clock, source } = await setUp();
    await source.current();
    clock.advance(29_999);
    expect((await source.current())?.fetchedAt).toEqual(new Date('2025-01-01T00:00:00Z'));
    expect(feed.requests).toBe(1);
    clock.advance(1);
    feed.handler = answer(200, { ...SHEET, usd: { ...SHEET.usd, ETH: '3200' } });
    const refreshed = await source.current();
    expect(feed.requests).toBe(2);
    expect(refreshed?.usd.ETH).toBe('3200');
    expect(refreshed?.fetchedAt).toEqual(new Date('2025-01-01T00:00:30Z'));
  });

  it('concurrent callers share one request', async () => {
    const { feed, source } = await setUp();
    feed.handler = (req, res) => setTimeout(() => answer(200, SHEET)(req, res), 50);
    const snapshots = await Promise.all(Array.from({ length: 5 }, () => source.current()));
    expect(feed.requests).toBe(1);
    for (const snapshot of snapshots) expect(snapshot).toBe(snapshots[0]);
  });

  it('answers null while it has never succeeded', async () => {
    const { feed, source } = await setUp();
    feed.handler = answer(500, { error: 'down' });
    expect(await source.current()).toBeNull();
    expect(source.lastFailure).toEqual({ at: new Date('2025-01-01T00:00:00Z'), message: 'the price feed answered HTTP 500' });
  });

  it.each<[string, Handler, RegExp]>([
    ['a timeout (no answer at all)', () => {}, /did not answer within 2000 ms/],
    ['a timeout while the body streams', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"usd":'), /did not answer within 2000 ms/],
    ['HTTP 500', answer(500, SHEET), /answered HTTP 500/],
    ['HTTP 404', answer(404, 'not found'), /answered HTTP 404/],
    ['a body that is not JSON', answer(200, '<html>maintenance</html>'), /not JSON/],
    ['an invalid sheet', answer(200, { ...SHEET, usd: { ETH: 3150.25 } }), /invalid sheet: \/usd\/ETH must be string/],
    ['a USD rate other than 1', answer(200, { ...SHEET, fx: { USD: '0.99' } }), /\/fx\/USD must be 1/],
  ])('after %s keeps serving the last good snapshot with its old fetchedAt, then recovers', async (_case, failing, message) => {
    // Long enough that the good answers around the failure never time out on a busy machine.
    const { feed, clock, source } = await setUp(2000);
    const good = await source.current();

    clock.advance(30_000);
    feed.handler = failing;
    expect(await source.current()).toBe(good);
    expect(good?.fetchedAt).toEqual(new Date('2025-01-01T00:00:00Z'));
    expect(source.lastFailure?.message).toMatch(message);
    expect(source.lastFailure?.at).toEqual(new Date('2025-01-01T00:00:30Z'));

    // The failed attempt is reused too: no new request until the window passes.
    clock.advance(29_000);
    feed.handler = answer(200, { ...SHEET, usd: { ...SHEET.usd, ETH: '3300' } });
    expect(await source.current()).toBe(good);
    expect(feed.requests).toBe(2);

    clock.advance(1_000);
    const recovered = await source.current();
    expect(feed.requests).toBe(3);
    expect(recovered?.usd.ETH).toBe('3300');
    expect(recovered?.fetchedAt).toEqual(new Date('2025-01-01T00:01:00Z'));
    expect(source.lastFailure).toBeUndefined();
  });

  it('a feed that cannot be reached is a failure, not an exception', async () => {
    const clock = new ManualClock();
    const feed = new FakeFeed();
    const url = await feed.start();
    await feed.stop();
    const source = new HttpPriceSource({ url, timeoutMs: 1000, cacheSeconds: 30, clock });
    expect(await source.current()).toBeNull();
    expect(source.lastFailure?.message).toMatch(/ECONNREFUSED/);
  });
});
