import { address, generateKeyPairSigner } from '@solana/kit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../src/domain/clock.js';
import { rpcSolanaReader } from '../../../src/providers/chains/solana/solana-rpc.js';
import { SolanaWatcher } from '../../../src/workers/solana-watcher.js';
import { startTestApp, type Tenant, type TestApp } from '../../support/app.js';
import { ManualClock } from '../../support/clock.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { createAddress, createIntent, createTenant, json, type TransactionObject } from '../../support/partner.js';
import { solanaRpcProxy } from '../../support/solana/rpc-proxy.js';
import { solanaRpcWorld, USDC_MINT } from '../../support/solana/rpc-world.js';

let world: Awaited<ReturnType<typeof solanaRpcWorld>>;
let proxy: Awaited<ReturnType<typeof solanaRpcProxy>>;
let t: TestApp;
let live: Tenant;
const warnings: string[] = [];

interface Limits {
  maxCallsPerTick?: number;
  idleHours?: number;
  idlePollSeconds?: number;
}

/** A watcher reading through the proxy, as the worker builds one. */
const watcher = (limits: Limits = {}, clock: Clock = systemClock) =>
  new SolanaWatcher(
    t.db,
    rpcSolanaReader(proxy.url, 5_000),
    t.ctx.catalog,
    clock,
    async () => ({ snapshot: await t.ctx.prices.current(), maxAgeSeconds: t.ctx.config.pricesMaxAgeSeconds }),
    { network: 'solana', watchHoursAfterExpiry: 72, poolLowThreshold: 0, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600, ...limits },
    { warn: (_fields: unknown, message: string) => void warnings.push(message), error: () => {} } as never,
    t.ctx.metrics,
  );

async function credited(signature: string): Promise<TransactionObject[]> {
  const res = await t.call(live.key, 'GET', '/transactions');
  return json<{ data: TransactionObject[] }>(res).data.filter((tx) => tx.tx_hash === signature && tx.status === 'confirmed');
}

const tokenAccount = async (owner: string) => world.tokenAccountOf(address(owner), USDC_MINT);

async function cursorOf(account: string): Promise<string | undefined> {
  const [row] = await t.db.query<{ last_signature: string }>('SELECT last_signature FROM solana_signature_cursors WHERE account = $1', [account]);
  return row?.last_signature;
}

beforeAll(async () => {
  world = await solanaRpcWorld();
  proxy = await solanaRpcProxy(world.url);
});
afterAll(async () => {
  await proxy?.close();
  await world?.close();
});

// A database of its own for each rule: no address of another test competes for the budget.
beforeEach(async () => {
  t = await startTestApp({
    solana: { rpcUrls: { solana: proxy.url }, pollSeconds: 1, poolLowThreshold: 0, watchHoursAfterExpiry: 72, rpcTimeoutMs: 5_000, signer: null, payoutMaxSignings: 3, payoutExpiryConfirmSeconds: 0, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 },
  });
  live = await createTenant(t, { mode: 'live' });
  const keys = await Promise.all(Array.from({ length: 8 }, async (_, i) => ({ owner: (await generateKeyPairSigner()).address, derivation_path: `m/44'/501'/${i}'/0'` })));
  expect((await t.admin('POST', '/solana/owner-keys', { network: 'solana', keys })).statusCode).toBe(200);
  proxy.reset();
  Object.assign(proxy.state, { lagSlot: null, honoursMinContextSlot: true });
  proxy.state.hiddenTransactions.clear();
  warnings.length = 0;
});
afterEach(async () => {
  await t?.close();
});

describe('the Solana watcher stays within the calls the operator allows', () => {
  it('one tick makes at most CONNECT_SOLANA_MAX_CALLS calls; the addresses it could not read come first at the next tick, so every deposit is credited', async () => {
    const owners = [];
    for (let i = 0; i < 5; i++) owners.push((await createAddress(t, live.key, { asset: 'USDC', network: 'solana' })).address);
    const payments = [];
    for (const owner of owners) payments.push((await world.payToken(owner, USDC_MINT, 1_000_000n)).signature);

    // Each address costs 3 calls: its owner and its token account listed, one new transaction read.
    const capped = watcher({ maxCallsPerTick: 6 });
    const perTick: number[] = [];
    for (let tick = 0; tick < 3; tick++) {
      proxy.reset();
      await capped.tick();
      perTick.push(proxy.state.calls.length);
    }
    expect(perTick.every((calls) => calls <= 6), String(perTick)).toBe(true);
    for (const signature of payments) expect(await credited(signature)).toHaveLength(1);
    expect(warnings.some((w) => w.includes('CONNECT_SOLANA_MAX_CALLS'))).toBe(true);
    const metrics = await t.admin('GET', '/metrics');
    expect(valueOf(parseExposition(metrics.body), 'connect_solana_watcher_budget_spent_total', { network: 'solana' })).toBeGreaterThanOrEqual(1);
  });

  it('a transaction the node lists but does not return holds back only its own address: the others are credited in the same tick, it once the node returns it', async () => {
    const first = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const second = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const missing = await world.payToken(first.address, USDC_MINT, 2_000_000n);
    const other = await world.payToken(second.address, USDC_MINT, 3_000_000n);
    proxy.state.hiddenTransactions.add(missing.signature);

    expect(await watcher().tick()).toBe(1);
    expect(await credited(other.signature)).toHaveLength(1);
    expect(await credited(missing.signature)).toEqual([]);
    expect(warnings.some((w) => w.includes('does not return'))).toBe(true);

    proxy.state.hiddenTransactions.clear();
    expect(await watcher().tick()).toBe(1);
    expect(await credited(missing.signature)).toHaveLength(1);
  });

  it('a standalone address without a new signature for CONNECT_SOLANA_IDLE_HOURS is read every CONNECT_SOLANA_IDLE_POLL_SECONDS, not every tick; an open intent\'s address is read every tick', async () => {
    const standalone = (await createAddress(t, live.key, { asset: 'USDC', network: 'solana' })).address;
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC'] });
    const ofIntent = intent.addresses.find((a) => a.network === 'solana')!.address;
    const clock = new ManualClock();
    const reads = async () => {
      proxy.reset();
      await watcher({}, clock).tick();
      return [proxy.listed(standalone), proxy.listed(ofIntent)];
    };

    expect(await reads()).toEqual([1, 1]);
    expect(await reads()).toEqual([1, 1]);
    clock.advance(25 * 3_600_000);
    // Idle now: read once more (its last read is older than the idle period), then left alone until that is.
    expect(await reads()).toEqual([1, 1]);
    expect(await reads()).toEqual([0, 1]);
    clock.advance(599_000);
    expect(await reads()).toEqual([0, 1]);
    clock.advance(1_000);
    expect(await reads()).toEqual([1, 1]);
  });
});

describe('a lagging backend never moves a Solana cursor backwards', () => {
  it('a backend that has not reached the cursor\'s slot refuses (minContextSlot), and one that answers anyway is not believed: the cursor stays, and what came after it is credited once a caught-up backend answers', async () => {
    const { address: owner } = await createAddress(t, live.key, { asset: 'USDC', network: 'solana' });
    const account = await tokenAccount(owner);
    await world.payToken(owner, USDC_MINT, 1_000_000n);
    const second = await world.payToken(owner, USDC_MINT, 1_000_000n);
    expect(await watcher().tick()).toBe(2);
    expect(await cursorOf(account)).toBe(second.signature);

    // A backend that has the first payment but not the second, the cursor.
    const [deposit] = await t.db.query<{ slot: string }>('SELECT block_number::text AS slot FROM chain_deposits WHERE tx_hash = $1', [second.signature]);
    proxy.state.lagSlot = Number(deposit!.slot) - 1;
    const third = await world.payToken(owner, USDC_MINT, 1_000_000n);
    expect(await watcher().tick()).toBe(0);
    expect(await cursorOf(account)).toBe(second.signature);
    proxy.state.honoursMinContextSlot = false;
    expect(await watcher().tick()).toBe(0);
    expect(await cursorOf(account)).toBe(second.signature);

    proxy.state.lagSlot = null;
    expect(await watcher().tick()).toBe(1);
    expect(await credited(third.signature)).toHaveLength(1);
    expect(await cursorOf(account)).toBe(third.signature);
  });
});
