import { randomBytes, randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { afterAll, beforeAll, expect } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import type { PayoutQuote } from '../../../src/http/resources/payout.js';
import { tron } from '../../../src/providers/chains/tron/address.js';
import { localTronSigner } from '../../../src/providers/chains/tron/signer.js';
import type { TronPayoutsConfig } from '../../../src/config.js';
import type { PayoutBoundary } from '../../../src/outbound/outcomes.js';
import { startTestApp, type TestApp } from '../app.js';
import { seededRandom } from '../evm/flaky-rpc.js';
import type { ExpiringChainRig } from '../expiring-crash-points.js';
import type { PayoutObject } from '../evm/live-payouts.js';
import { createTenant, creditDirect, extraKey, insertLiveAddress, json } from '../partner.js';
import { FakeTronNode } from './fake-node.js';
import { TEST_TRON_XPUB } from './xpub.js';

type Quote = Static<typeof PayoutQuote>;

/** The catalog's USDT on Tron: the fake node keeps its balances. */
export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
/** The hot wallet's key in these tests (never a real one), and its address. */
export const HOT_WALLET_KEY = '8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63';
export const HOT_WALLET = localTronSigner(HOT_WALLET_KEY).address;

/** A fake node serving `tron`, and a live app configured for it as an operator would (settings, not stand-ins). */
export interface TronPayoutWorld {
  node: FakeTronNode;
  t: TestApp;
  /** Another process on the same database and node; stopped with the world. */
  process(): Promise<TestApp>;
}

/**
 * Starts the world before the file's tests, stops it after. `atBoundary` is where both the Payouts use case and
 * the engine report their step boundaries (crash-point tests stop there); `options` replace the engine's defaults.
 */
export function useTronPayoutWorld(
  atBoundary?: (boundary: PayoutBoundary, payoutId: string) => Promise<void>,
  options: Partial<TronPayoutsConfig> = {},
): TronPayoutWorld {
  const world = {} as TronPayoutWorld;
  const processes: TestApp[] = [];
  /** An app whose live Tron (deposits and payouts) is the world's node, from the settings an operator sets. */
  const start = (existing?: TestApp['testDb']): Promise<TestApp> =>
    startTestApp(
      {
        // The JSON-RPC is the watcher's, which these tests do not run; the HTTP API is the node's.
        tron: { xpub: TEST_TRON_XPUB, rpcUrls: { tron: `${world.node.url}/jsonrpc` } },
        tronPayouts: {
          httpUrls: { tron: world.node.url },
          signer: { key: HOT_WALLET_KEY },
          expirationSeconds: 60,
          timeoutMs: 2_000,
          maxSignings: 3,
          // Tests decide when blocks are produced: a later sweep is the second sighting an expiry needs.
          expiryConfirmSeconds: 0,
          ...options,
        },
        // Every sweep looks at every open payout again: tests decide when blocks are produced.
        livePayouts: { leaseSeconds: 120, recheckSeconds: 0, sweepLimit: 100, sweepSeconds: 5, sweepSecondsByNetwork: {} },
      },
      existing,
      { atPayoutBoundary: atBoundary },
    );
  world.process = async () => {
    const t = await start(world.t.testDb);
    processes.push(t);
    return t;
  };
  beforeAll(async () => {
    world.node = await FakeTronNode.start();
    world.node.mine(1);
    world.t = await start();
  });
  afterAll(async () => {
    for (const t of processes) await t.close();
    await world.t?.close();
    await world.node?.close();
  });
  return world;
}

export const quiet = { warn: () => {}, error: () => {} };

/** What Tron payout tests do and read, on the world's app; Solana's payout tests use it with `network` solana. */
export function tronPayoutKit(world: Pick<TronPayoutWorld, 't'>, network = 'tron') {
  /** A live tenant whose treasury holds `amount` of `asset` on the network (credited as a watcher would). */
  async function fundedTenant(amount: string, asset = 'USDT'): Promise<{ key: string; organizationId: string }> {
    const tenant = await createTenant(world.t);
    const key = await extraKey(world.t, tenant.organizationId, 'live');
    const addressId = await insertLiveAddress(world.t, tenant.organizationId, { asset, network });
    await creditDirect(world.t, tenant.organizationId, { addressId, network, amount }, 'live');
    return { key, organizationId: tenant.organizationId };
  }

  async function pay(key: string, destination: string, amount: string, asset = 'USDT'): Promise<PayoutObject> {
    const quote = await world.t.call(key, 'POST', '/payouts/quote', {
      body: { asset, amount, destination, network_hint: network },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const res = await world.t.call(key, 'POST', '/payouts', { body: { quote_id: json<Quote>(quote).quote_id }, idempotencyKey: randomUUID() });
    expect(res.statusCode, res.body).toBe(201);
    return json<PayoutObject>(res);
  }

  const statusOf = async (key: string, id: string) => json<PayoutObject>(await world.t.call(key, 'GET', `/payouts/${id}`));
  const sweep = () => world.t.ctx.outbound.sweep(quiet, [network]);
  const lastError = async (payoutId: string) =>
    (await world.t.db.query<{ last_error: string | null }>('SELECT last_error FROM payouts WHERE id = $1', [payoutId]))[0]!.last_error;
  const recorded = (payoutId: string) =>
    world.t.db.query<{ tx_id: string; status: string; signing: number; deadline: string }>(
      'SELECT tx_id, status, signing, deadline::text AS deadline FROM expiring_payout_txs WHERE payout_id = $1 ORDER BY signing',
      [payoutId],
    );
  /**
   * Sweeps (with `sweeper`: one sweep by default) until the newest transaction of each payout is recorded expired, at
   * most 16 times. It is believed on a later attempt than the first that sees it past its deadline and landed
   * nowhere, from answers proving their node's height (docs/money-out.md): two sweeps when every answer is up to
   * date (the worlds ask for no delay between them), more when some come from a backend behind. What the same
   * attempt does next (sign again, or fail the payout) is done by then.
   */
  async function sweepUntilExpired(payoutIds: string[], sweeper: () => Promise<unknown> = sweep): Promise<void> {
    const newest = await Promise.all(payoutIds.map(async (id) => (await recorded(id)).at(-1)!.tx_id));
    for (let round = 0; round < 16; round++) {
      await sweeper();
      const open = await world.t.db.query("SELECT 1 FROM expiring_payout_txs WHERE tx_id = ANY($1::text[]) AND status <> 'expired'", [newest]);
      if (open.length === 0) return;
    }
    throw new Error(`not every one of ${newest.join(', ')} was recorded expired after 16 sweeps`);
  }

  return {
    fundedTenant,
    pay,
    statusOf,
    sweep,
    sweepUntilExpired,
    /** Waits for the payout to reach `status` (its first attempt runs after the executing request's commit); a failure says why it is open. */
    reaches: async (key: string, id: string, status: PayoutObject['status']) => {
      await expect
        .poll(async () => (await statusOf(key, id)).status, { timeout: 20_000 })
        .toBe(status)
        .catch(async (error: unknown) => {
          const payout = await statusOf(key, id);
          throw new Error(`payout ${payout.status} (${payout.failure_reason ?? (await lastError(id)) ?? 'no error'}), not ${status}`, { cause: error });
        });
    },
    /** A Tron address nobody holds anything at. */
    freshDestination: () => tron.encode(randomBytes(20)),
    /** The live `asset` the organization can spend. */
    available: async (organizationId: string, asset = 'USDT') => {
      const [row] = await world.t.db.query<{ balance: string }>(
        "SELECT coalesce(sum(balance), 0)::text AS balance FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live' AND kind = 'available' AND asset = $2",
        [organizationId, asset],
      );
      return new Decimal(row!.balance).toFixed();
    },
    lastError,
    /** The payout's transactions as recorded (migration 020), first signed first. */
    recorded,
  };
}

/** What the engine reads to follow a payout's transaction: its final point, the lookups, and the solidified blocks. */
const FOLLOW_READS = new Set(['/walletsolidity/getnowblock', '/walletsolidity/gettransactioninfobyid', '/wallet/gettransactioninfobyid', '/walletsolidity/getblockbylimitnext']);
/** How far a lagging backend is behind: more than a transaction's 20-block lifetime and the 20 confirmations after it (it has not seen what landed since). */
const LAG_BLOCKS = 60;
/** Fixed, so a failing run replays the same lag: with this one, both lookups of the first attempt come from the backend behind. */
const LAG_SEED = 44;

/** A quarter of the reads that follow a payout answered by a backend LAG_BLOCKS behind, drawn from `random`: the node's `behind`. */
export const laggingFollowReads = (random: () => number) => (path: string) => (FOLLOW_READS.has(path) && random() < 0.25 ? LAG_BLOCKS : 0);

/** The world's Tron as the expiring-payout suites drive it (test/support/expiring-crash-points.ts, expiring-refunds.ts). */
export function tronChainRig(world: TronPayoutWorld, kit: ReturnType<typeof tronPayoutKit>): ExpiringChainRig {
  return {
    chain: 'Tron',
    network: 'tron',
    asset: 'USDT',
    world,
    kit,
    freshDestination: async () => kit.freshDestination(),
    received: async (destination) => world.node.tokenBalance(USDT, destination),
    landed: async (_, destination) => world.node.transfersTo(destination).map((transfer) => transfer.txId),
    // The solidified head is about 19 blocks behind; the catalog asks 20 confirmations.
    finalize: () => world.node.mine(21),
    dropSends: (drop) => {
      world.node.dropBroadcasts = drop;
    },
    // A Tron deadline is an expiration in ms: passed once the solidified block's time is at or after it.
    passDeadlines: (deadlines) => world.node.mineUntilSolidAt(Number(deadlines.reduce((a, b) => (a > b ? a : b)))),
    lag: (on) => {
      world.node.behind = on ? laggingFollowReads(seededRandom(LAG_SEED)) : () => 0;
    },
  };
}
