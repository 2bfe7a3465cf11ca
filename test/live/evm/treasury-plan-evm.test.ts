import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkFees } from '../../../src/domain/network-fees.js';
import type { TreasuryPlanAnswer, TreasuryStatusAnswer } from '../../../src/http/resources/treasury.js';
import { evmBalanceReader } from '../../../src/providers/chains/balances.js';
import { Treasury } from '../../../src/use-cases/treasury.js';
import type { TestApp, Tenant } from '../../support/app.js';
import { startTestApp } from '../../support/app.js';
import { cliOn } from '../../support/cli.js';
import { ManualClock } from '../../support/clock.js';
import { signInOperator } from '../../support/dashboard.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, liveEvmConfig, TEST_CONFIRMATIONS, TEST_XPUB, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { createAddress, createTenant, json } from '../../support/partner.js';

type Plan = TreasuryPlanAnswer['data'][number];

const COLD = '0x000000000000000000000000000000000000c01d';
const policy = {
  ethereum: {
    sweep_every_seconds: 300,
    assets: {
      USDC: { float_target: '100', float_low: '20', float_high: '150', cold_address: COLD, min_sweep: '5', max_cost_share: '0.1' },
      ETH: { float_target: '1', float_low: '0.5', float_high: '2', min_sweep: '0.01', max_cost_share: '0.1' },
    },
  },
  tron: { sweep_every_seconds: 300, assets: { USDT: { float_target: '100', float_low: '10', float_high: '200', min_sweep: '5', max_cost_share: '0.1' } } },
};

let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
let live: Tenant;
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'treasury-plan-')), 'treasury.json');

beforeAll(async () => {
  fs.writeFileSync(file, JSON.stringify(policy));
  anvil = await startAnvil();
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
  t = await startTestApp({ ...liveEvmConfig([ethereum]), treasuryFile: file });
  live = await createTenant(t, { mode: 'live' });
  // The watcher's first tick sets its cursor at the head: deposits after it are seen.
  await watcherFor(t, ethereum).tick();
});
afterAll(async () => {
  await t?.close();
  await anvil?.close();
});

/** A deposit of `amount` to a new address of the live tenant, credited (or only seen, when `confirmed` is false). */
async function deposit(asset: 'USDC' | 'ETH', amount: string, confirmed = true): Promise<string> {
  const { address } = await createAddress(t, live.key, { asset, network: 'ethereum' });
  if (asset === 'USDC') await anvil.sendToken(ethereum.usdc, address, amount);
  else await anvil.sendEth(address, amount);
  if (confirmed) await anvil.mine(TEST_CONFIRMATIONS);
  await watcherFor(t, ethereum).tick();
  return address;
}

async function plans(query = ''): Promise<Plan[]> {
  const res = await t.admin('GET', `/treasury/plan${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return json<TreasuryPlanAnswer>(res).data;
}

const planOf = (all: Plan[], network: string, asset: string) => all.find((p) => p.network === network && p.asset === asset)!;

describe('treasury plan on anvil: what sweeping would do now, read on chain, nothing sent (docs/treasury.md)', () => {
  const addresses: Record<string, string> = {};

  it('USDC: largest first, the hot wallet filled to its target without passing float_high, the rest to cold; small and costly balances stay', async () => {
    for (const [name, amount] of [['a80', '80'], ['a60', '60'], ['a40', '40'], ['a30', '30'], ['a3', '3']] as const) addresses[name] = await deposit('USDC', amount);
    // Seen, not confirmed: not credited, so never swept, and counted as not credited.
    addresses.waiting = await deposit('USDC', '7', false);

    const usdc = planOf(await plans(), 'ethereum', 'USDC');
    // A sweep costs one USDC transfer (2.40 USD in network-fees.json) and the ETH top-up before it (1.50 USD).
    expect(usdc).toEqual({
      object: 'treasury_plan',
      network: 'ethereum',
      asset: 'USDC',
      pause: null,
      error: null,
      hot_wallet: { address: HOT_WALLET, level: 'low', balance: '0', owed: '0', float: '0', after: '140', target: '100', low: '20', high: '150' },
      cold_storage: { address: COLD, balance: '0' },
      deposit_addresses: { count: 6, on_chain: '220', not_credited: '7' },
      sweeps: [
        { address: addresses.a80, amount: '80', arrives: '80', cost: '3.9', to: 'hot_wallet' },
        // 80 + 60 is under float_high (150), and the float was still under its target before it.
        { address: addresses.a60, amount: '60', arrives: '60', cost: '3.9', to: 'hot_wallet' },
        { address: addresses.a40, amount: '40', arrives: '40', cost: '3.9', to: 'cold_storage' },
      ],
      skipped: [
        // 3.9 is more than a tenth of 30.
        { address: addresses.a30, amount: '30', reason: 'too_costly' },
        { address: addresses.a3, amount: '3', reason: 'below_minimum' },
      ],
    });
  });

  it('the plan is stored, summed: `treasury status`, the gauges, /readyz and the dashboard read it without reading the chain', async () => {
    const status = json<TreasuryStatusAnswer>(await t.admin('GET', '/treasury/status?network=ethereum')).data;
    expect(status.map((s) => s.asset)).toEqual(['USDC', 'ETH']);
    expect(status[0]).toEqual({
      object: 'treasury_status',
      network: 'ethereum',
      asset: 'USDC',
      pause: null,
      float_level: 'low',
      error: null,
      summary: {
        hot_wallet: { address: HOT_WALLET, balance: '0', owed: '0', float: '0', target: '100', low: '20', high: '150' },
        cold_storage: { address: COLD, balance: '0' },
        deposit_addresses: { count: 6, on_chain: '220', not_credited: '7' },
        planned: { sweeps: 3, to_hot_wallet: '140', to_cold_storage: '40' },
        left: { below_minimum: '3', too_costly: '30', float_full: '0' },
      },
      checked_at: expect.any(String),
      planned_at: status[0]!.checked_at,
    });

    const metrics = parseExposition((await t.admin('GET', '/metrics')).body);
    expect(valueOf(metrics, 'connect_treasury_float_low', { network: 'ethereum', asset: 'USDC' })).toBe(1);
    expect(valueOf(metrics, 'connect_treasury_float_low', { network: 'ethereum', asset: 'ETH' })).toBe(0);
    expect(valueOf(metrics, 'connect_treasury_float', { network: 'ethereum', asset: 'USDC' })).toBe(0);
    expect(valueOf(metrics, 'connect_treasury_sweepable', { network: 'ethereum', asset: 'USDC' })).toBe(180);
    expect(valueOf(metrics, 'connect_treasury_last_plan_timestamp_seconds', { network: 'ethereum', asset: 'USDC' })).toBe(Date.parse(status[0]!.planned_at!) / 1000);

    // A low float is said, not failed on: the service still serves.
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().treasury).toEqual({ floats_low: ['USDC on ethereum'] });

    const page = (await (await signInOperator(t)).get('/admin/treasury')).body;
    expect(page).toContain('<strong>low</strong>');
    expect(page).toContain('3 sweeps: 140 to hot, 40 to cold');
    expect(page).toContain('220 USDC');
    expect(page).toContain('href="/admin/treasury">Treasury</a>');
  });

  it('the periodic job plans a network again only once its sweep_every_seconds have passed', async () => {
    const { ctx } = t;
    const at = (seconds: number) => new ManualClock(new Date(Date.now() + seconds * 1000));
    const treasuryAt = (clock: ManualClock) =>
      new Treasury(t.db, ctx.treasury.policy, clock, ctx.catalog, ctx.reconciliation.networks, NetworkFees.load(undefined, ctx.catalog), ctx.prices, ctx.config.pricesMaxAgeSeconds);
    // A pair the policy no longer names (planned long ago, then removed from the file) keeps no network due.
    await t.db.query(`INSERT INTO treasury_status (network, asset, checked_at) VALUES ('ethereum', 'USDT', now() - interval '1 day')`);
    // Both networks were planned by the request above.
    expect(await treasuryAt(at(0)).planDue()).toEqual([]);
    expect(await treasuryAt(at(60)).planDue()).toEqual([]);
    expect((await treasuryAt(at(300)).planDue()).map((p) => `${p.policy.network}/${p.policy.asset}`)).toEqual(['ethereum/USDC', 'ethereum/ETH', 'tron/USDT']);
    // A plan forgets it: no status, no gauge, for a pair that is not swept.
    expect(await t.db.query(`SELECT 1 FROM treasury_status WHERE network = 'ethereum' AND asset = 'USDT'`)).toEqual([]);
  });

  it('ETH: the hot wallet is above float_high and there is no cold address, so a deposit stays where it is; a native sweep pays its own fee', async () => {
    addresses.eth = await deposit('ETH', '0.2');
    const eth = planOf(await plans('?network=ethereum'), 'ethereum', 'ETH');
    expect(eth.hot_wallet?.level).toBe('high');
    expect(eth.cold_storage).toBeNull();
    expect(eth.sweeps).toEqual([]);
    expect(eth.skipped).toEqual([{ address: addresses.eth, amount: '0.2', reason: 'float_full' }]);
  });

  it('a network of the policy whose chain this deployment does not read has no plan, and says why; a paused network is planned anyway', async () => {
    await t.admin('POST', '/treasury/networks/ethereum/pause', { reason: 'audit' });
    const all = await plans();
    expect(planOf(all, 'tron', 'USDT')).toMatchObject({
      error: 'tron is not a live network of this deployment: no RPC URL is set for it, so its chain is not read',
      hot_wallet: null,
      deposit_addresses: null,
      sweeps: [],
      skipped: [],
    });
    const usdc = planOf(all, 'ethereum', 'USDC');
    expect(usdc.pause?.reason).toBe('audit');
    expect(usdc.sweeps).toHaveLength(3);
    await t.admin('POST', '/treasury/networks/ethereum/resume');
  });

  it('a node that does not answer makes no plan, never an empty one', async () => {
    const { ctx } = t;
    const down = [{ network: 'ethereum', reader: evmBalanceReader('http://127.0.0.1:9/', 1_000), hotWallet: HOT_WALLET }];
    const treasury = new Treasury(t.db, ctx.treasury.policy, ctx.clock, ctx.catalog, down, NetworkFees.load(undefined, ctx.catalog), ctx.prices, ctx.config.pricesMaxAgeSeconds);
    const [usdc] = await treasury.plan('ethereum');
    expect(usdc!.error).toMatch(/fetch failed|ECONNREFUSED|HTTP request failed/);
    expect(usdc!.plan).toBeNull();
    expect(usdc!.depositAddresses).toBeNull();
    // The status says why, and keeps the last plan that was made.
    const [stored] = json<TreasuryStatusAnswer>(await t.admin('GET', '/treasury/status?network=ethereum')).data;
    expect(stored!.error).toBe(usdc!.error);
    expect(stored!.summary?.deposit_addresses.count).toBe(6);
    expect(Date.parse(stored!.checked_at!)).toBeGreaterThan(Date.parse(stored!.planned_at!));
  });

  it('an unknown network is a 404 naming those of the policy', async () => {
    const res = await t.admin('GET', '/treasury/plan?network=bitcoin');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('bitcoin is not a network of the treasury policy (those: ethereum, tron).');
  });

  it('the CLI prints the plan: a row per network and asset, then each sweep and skipped address', async () => {
    const cli = cliOn(() => t, {
      CONNECT_TREASURY_FILE: file,
      CONNECT_CATALOG_FILE: t.ctx.config.catalogFile,
      CONNECT_EVM_XPUB: TEST_XPUB,
      CONNECT_EVM_RPC_ETHEREUM: anvil.url,
      CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY,
    });
    const { code, stdout } = await cli('treasury', 'plan', '--network', 'ethereum');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^NETWORK\s+ASSET\s+FLOAT\s+HOT WALLET\s+OWED\s+AFTER\s+TARGET\s+SWEEPS\s+SKIPPED\n/);
    // The waiting deposit has its confirmations by now: credited, and too small to be worth its cost.
    expect(stdout).toMatch(/ethereum\s+USDC\s+low\s+0\s+0\s+140\s+100\s+3\s+3\n/);
    expect(stdout).toContain(`  sweep ${addresses.a80}: 80 to hot_wallet (arrives 80, cost 3.9)\n`);
    expect(stdout).toContain(`  skip  ${addresses.a3}: 3 (below_minimum)\n`);
    const status = await cli('treasury', 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^NETWORK\s+ASSET\s+FLOAT\s+HOT WALLET\s+OWED\s+TARGET\s+ON DEPOSITS\s+TO SWEEP\s+LEFT\s+PLANNED\n/);
    expect(status.stdout).toMatch(/ethereum\s+USDC\s+low\s+0\s+0\s+100\s+220\s+3 \(140 hot, 40 cold\)\s+40\s+\d{4}-/);
    expect(status.stdout).toContain('tron      USDT   -');
    expect(status.stdout).toContain('  latest attempt made no plan');
    const asJson = await cli('treasury', 'plan', '--json');
    expect(JSON.parse(asJson.stdout).data.map((p: Plan) => `${p.network}/${p.asset}`)).toEqual(['ethereum/USDC', 'ethereum/ETH', 'tron/USDT']);
  });

  it('a live payout waiting for funds counts against the float: the plan fills the hot wallet for it before anything goes to cold storage', async () => {
    const quote = await t.call(live.key, 'POST', '/payouts/quote', {
      body: { asset: 'USDC', amount: '50', destination: '0x00000000000000000000000000000000000d0d0d', network_hint: 'ethereum' },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    const payout = await t.call(live.key, 'POST', '/payouts', { body: { quote_id: quote.json().quote_id }, idempotencyKey: randomUUID() });
    expect(payout.statusCode, payout.body).toBe(201);
    const lastError = async () => (await t.db.query<{ last_error: string | null }>('SELECT last_error FROM payouts WHERE id = $1', [payout.json().id]))[0]!.last_error;
    await expect.poll(lastError).toMatch(/^waiting for funds: the hot wallet holds 0 USDC on ethereum and this payout sends 50;/);

    const usdc = planOf(await plans('?network=ethereum'), 'ethereum', 'USDC');
    expect(usdc.hot_wallet).toMatchObject({ level: 'low', balance: '0', owed: '50', float: '-50', after: '130' });
    expect(usdc.sweeps.map((s) => [s.amount, s.to])).toEqual([
      ['80', 'hot_wallet'],
      ['60', 'hot_wallet'],
      ['40', 'hot_wallet'],
    ]);
  });
});
