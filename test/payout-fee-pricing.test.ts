import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceSnapshot } from '../src/providers/prices/price-source.js';
import { startTestApp, type TestApp } from './support/app.js';
import { HOT_WALLET_KEY, TEST_XPUB } from './support/evm/live-app.js';
import { createTenant, errorOf, json } from './support/partner.js';

const shipped = JSON.parse(fs.readFileSync(new URL('../src/providers/prices/prices.json', import.meta.url), 'utf8')) as {
  usd: Record<string, string>;
  fx: Record<string, string>;
  pegs: Record<string, string>;
};

/** The shipped prices as a feed would answer them, fresh at every call, less what `missing` names. */
function feedWithout(...missing: string[]) {
  const usd = Object.fromEntries(Object.entries(shipped.usd).filter(([code]) => !missing.includes(code)));
  return { current: async (): Promise<PriceSnapshot> => ({ fetchedAt: new Date(), usd, fx: shipped.fx, pegs: shipped.pegs }) };
}

/** Valid on every EVM network; nothing is ever sent to it (no quote here is executed). */
const DESTINATION = `0x${'ab'.repeat(20)}`;

let t: TestApp;
let live: string;
let sandbox: string;

beforeAll(async () => {
  // Live payouts configured on Polygon and Ethereum (a hot wallet): only quotes are made, so the endpoints are never called.
  t = await startTestApp(
    {
      evm: {
        xpub: TEST_XPUB,
        rpcUrls: { polygon: 'http://127.0.0.1:9', ethereum: 'http://127.0.0.1:9' },
        pollSeconds: 1,
        batchBlocks: 50,
        reorgWindow: 64,
        forkConfirmSeconds: 60,
        // A proof that a payout paid nothing is looked at twice within one attempt: tests decide when time passes.
        notSentConfirmSeconds: 0,
        rebroadcastSeconds: 60,
        gapFillSeconds: 60,
        rpcTimeoutMs: 1_000,
        signer: { key: HOT_WALLET_KEY },
      },
    },
    undefined,
    { prices: feedWithout('POL') },
  );
  live = (await createTenant(t, { mode: 'live' })).key;
  sandbox = (await createTenant(t, { mode: 'test' })).key;
});

afterAll(async () => {
  await t?.close();
});

const quote = (key: string, body: Record<string, unknown>) =>
  t.call(key, 'POST', '/payouts/quote', { body: { asset: 'USDC', amount: '5', destination: DESTINATION, ...body }, idempotencyKey: randomUUID() });

describe('a payout whose network fee cannot be valued in the native asset that pays it', () => {
  it.each([
    ['live', () => live],
    ['sandbox', () => sandbox],
  ])('is refused at quote time (%s): a USDC quote on Polygon without a POL price is 503 price_unavailable naming POL, and no quote is stored', async (_mode, key) => {
    const before = await t.db.query('SELECT id FROM payout_quotes');
    const res = await quote(key(), { network_hint: 'polygon' });
    expect(res.statusCode, res.body).toBe(503);
    expect(errorOf(res)).toMatchObject({ code: 'price_unavailable' });
    expect(errorOf(res).message).toContain('No fresh POL price to convert the network fee on polygon into POL');
    expect(await t.db.query('SELECT id FROM payout_quotes')).toHaveLength(before.length);
  });

  it('is left out of the route without a hint: the quote goes out on a network whose fee can be valued, and never recommends Polygon', async () => {
    const res = await quote(live, {});
    expect(res.statusCode, res.body).toBe(201);
    const answer = json<{ route: { to_network: string }; recommendation?: { alternative_route: { network: string } } }>(res);
    expect(answer.route.to_network).toBe('ethereum');
    expect(answer.recommendation?.alternative_route.network).not.toBe('polygon');
  });
});
