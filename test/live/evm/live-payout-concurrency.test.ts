import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { erc20Abi, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/domain/money.js';
import type { Payout, PayoutQuote } from '../../../src/http/resources/payout.js';
import { verifyLedger } from '../../../src/use-cases/ledger.js';
import type { TestApp } from '../../support/app.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { seededRandom, startFlakyRpc, type Fault, type FlakyRpc } from '../../support/evm/flaky-rpc.js';
import { startLaggingRpc, type LaggingRpc } from '../../support/evm/lagging-rpc.js';
import { HOT_WALLET, quiet, startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { createAddress, createTenant, json } from '../../support/partner.js';

type PayoutObject = Static<typeof Payout> & { tx_hash: string | null };

/** Fixed, so a failing run replays the same faults. */
const SEED = 19;
const PAYOUTS = 50;

let anvil: Anvil;
let usdc: Address;
let proxies: FlakyRpc[];
/** What the flaky endpoints forward to: the node, or a backend behind it, request by request. */
let backends: LaggingRpc;
/** Three processes on one database, each reaching the chain through its own flaky endpoint. */
let processes: TestApp[];

beforeAll(async () => {
  anvil = await startAnvil();
  usdc = await anvil.deployToken();
  backends = await startLaggingRpc(anvil.url);
  proxies = await Promise.all([0, 1, 2].map(() => startFlakyRpc(backends.url)));
  const through = (proxy: FlakyRpc): WatchedNetwork => ({ network: 'ethereum', anvil: { ...anvil, url: proxy.url }, usdc });
  const first = await startLiveEvmApp([through(proxies[0]!)]);
  processes = [first, ...(await Promise.all(proxies.slice(1).map((proxy) => startLiveEvmApp([through(proxy)], first.testDb))))];
  await watcherFor(first, through(proxies[0]!)).tick();
});

afterAll(async () => {
  for (const app of (processes ?? []).toReversed()) await app.close();
  for (const proxy of proxies ?? []) await proxy.close();
  await backends?.close();
  await anvil?.close();
});

const sweepAll = () => Promise.all(processes.map((app) => app.ctx.outbound.sweep(quiet, ['ethereum'])));

describe('three processes working the same live payouts at once, through RPC endpoints that lose, delay and lag answers', () => {
  it(`${PAYOUTS} payouts: exactly one transfer for each completed payout and none for a failed one, funds released only for those, the ledger verifies`, { timeout: 180_000 }, async () => {
    const [first] = processes as [TestApp];
    const tenant = await createTenant(first, { mode: 'live' });
    const deposit = await createAddress(first, tenant.key, { asset: 'USDC', network: 'ethereum' });
    await anvil.sendToken(usdc, deposit.address, '500');
    await anvil.mine(TEST_CONFIRMATIONS);
    await watcherFor(first, { network: 'ethereum', anvil, usdc }).tick();
    await anvil.sendToken(usdc, HOT_WALLET, '100000');

    // The storm: a request in six is lost on its way or its answer is, one in twelve is delayed behind others; a
    // broadcast's answer is lost one time in three and a lookup of a transaction by its hash three times in four:
    // what leaves a broadcast's outcome in doubt (and what failed payouts that were paid, before the closed outcomes).
    const random = seededRandom(SEED);
    const storm = (method: string): Fault => {
      const r = random();
      if (method === 'eth_sendRawTransaction') return r < 0.33 ? 'drop-answer' : r < 0.4 ? 'delay' : 'pass';
      if (method === 'eth_getTransactionByHash') return r < 0.75 ? 'drop-answer' : 'pass';
      return r < 0.08 ? 'drop-request' : r < 0.17 ? 'drop-answer' : r < 0.25 ? 'delay' : 'pass';
    };
    for (const proxy of proxies) proxy.decide = storm;
    // And a quarter of what goes through is answered by a backend behind the chain by more than the confirmations.
    backends.route = () => (random() < 0.25 ? { behind: TEST_CONFIRMATIONS + 1 + Math.floor(random() * 10) } : 'fresh');

    // Each process executes a third of the payouts (its own first attempt after commit), while all three sweep.
    // Blocks come only between sweeps: a payout is resent while its transaction waits in the pool.
    await anvil.client.setAutomine(false);
    const destinations = Array.from({ length: PAYOUTS }, () => `0x${randomUUID().replaceAll('-', '')}${'0'.repeat(8)}`);
    const created: PayoutObject[] = [];
    let creating = true;
    const sweeping = (async () => {
      // While payouts are created, then ten rounds more; a block after every second sweep.
      for (let after = 0; after < 10; after += creating ? 0 : 1) {
        await sweepAll();
        await sweepAll();
        await anvil.mine(1);
      }
    })();
    for (const [i, destination] of destinations.entries()) {
      const app = processes[i % processes.length]!;
      const quote = await app.call(tenant.key, 'POST', '/payouts/quote', {
        body: { asset: 'USDC', amount: '1', destination, network_hint: 'ethereum' },
        idempotencyKey: randomUUID(),
      });
      expect(quote.statusCode, quote.body).toBe(201);
      const res = await app.call(tenant.key, 'POST', '/payouts', { body: { quote_id: json<Static<typeof PayoutQuote>>(quote).quote_id }, idempotencyKey: randomUUID() });
      expect(res.statusCode, res.body).toBe(201);
      created.push(json<PayoutObject>(res));
    }
    creating = false;
    await sweeping;
    expect(proxies.reduce((lost, proxy) => lost + proxy.counts['drop-answer'] + proxy.counts['drop-request'], 0)).toBeGreaterThan(0);
    expect(backends.counts.lagging).toBeGreaterThan(0);

    // The calm: every endpoint answers again; attempts still in flight end, then sweeps settle what is open.
    for (const proxy of proxies) proxy.decide = () => 'pass';
    backends.route = () => 'fresh';
    await anvil.client.setAutomine(true);
    await expect.poll(async () => (await first.db.query("SELECT 1 FROM payouts WHERE mode = 'live' AND status IN ('pending', 'processing') AND lease_token IS NOT NULL")).length, { timeout: 30_000 }).toBe(0);
    const ids = created.map((p) => p.id);
    for (let round = 0; round < 12; round++) {
      const open = await first.db.query("SELECT 1 FROM payouts WHERE id = ANY($1::uuid[]) AND status IN ('pending', 'processing')", [ids]);
      if (open.length === 0) break;
      await anvil.mine(TEST_CONFIRMATIONS);
      await sweepAll();
    }

    const final = await first.db.query<{ id: string; status: string; destination: string; tx_hash: string | null; user_sends: string }>(
      'SELECT id, status, destination, tx_hash, user_sends::text AS user_sends FROM payouts WHERE id = ANY($1::uuid[])',
      [ids],
    );
    expect(final.filter((p) => p.status !== 'completed' && p.status !== 'failed')).toEqual([]);
    let spent = new Decimal(0);
    for (const payout of final) {
      const transfers = await anvil.client.getContractEvents({ address: usdc, abi: erc20Abi, eventName: 'Transfer', args: { to: payout.destination as Address }, fromBlock: 0n });
      if (payout.status === 'completed') {
        expect(transfers.map((e) => e.transactionHash)).toEqual([payout.tx_hash]);
        spent = spent.plus(payout.user_sends);
      } else {
        expect(transfers).toEqual([]);
      }
    }
    const [held] = await first.db.query<{ available: string; reserved: string }>(
      `SELECT coalesce(sum(balance) FILTER (WHERE kind = 'available'), 0)::text AS available, coalesce(sum(balance) FILTER (WHERE kind = 'reserved'), 0)::text AS reserved
       FROM ledger_accounts WHERE organization_id = $1 AND mode = 'live'`,
      [tenant.organizationId],
    );
    expect(new Decimal(held!.available).toFixed()).toBe(new Decimal(500).minus(spent).toFixed());
    expect(new Decimal(held!.reserved).toFixed()).toBe('0');
    expect((await verifyLedger(first.db)).ok).toBe(true);
  });
});
