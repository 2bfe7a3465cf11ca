import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startBackgroundWork } from '../../../src/workers/background.js';
import type { TestApp, Tenant } from '../../support/app.js';
import { startAnvil, type Anvil } from '../../support/evm/anvil.js';
import { startLiveEvmApp, TEST_CONFIRMATIONS, watcherFor, type WatchedNetwork } from '../../support/evm/live-app.js';
import { createAddress, createIntent, createTenant, getIntent, json, type TransactionObject } from '../../support/partner.js';

let chains: Anvil[] = [];
let ethereum: WatchedNetwork;
let base: WatchedNetwork;
let t: TestApp;
let live: Tenant;

beforeAll(async () => {
  chains = await Promise.all([startAnvil({ chainId: 31337 }), startAnvil({ chainId: 8453 })]);
  ethereum = { network: 'ethereum', anvil: chains[0]!, usdc: await chains[0]!.deployToken() };
  base = { network: 'base', anvil: chains[1]!, usdc: await chains[1]!.deployToken() };
  t = await startLiveEvmApp([ethereum, base]);
  live = await createTenant(t, { mode: 'live' });
});

afterAll(async () => {
  await t?.close();
  await Promise.all(chains.map((c) => c.close()));
});

describe('two EVM networks at once', () => {
  it('a USDC intent expands to both watched networks, each deposit is credited by its own network\'s watcher', async () => {
    const watchers = [watcherFor(t, ethereum), watcherFor(t, base)];
    for (const w of watchers) await w.tick();
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC'] });
    expect(intent.addresses.map((a) => a.network)).toEqual(['base', 'ethereum']);
    const on = (network: string) => intent.addresses.find((a) => a.network === network)!.address;

    await ethereum.anvil.sendToken(ethereum.usdc, on('ethereum'), '4');
    await base.anvil.sendToken(base.usdc, on('base'), '6');
    // The ethereum address on base (and the other way round) is nobody's: a wrong-chain transfer credits nothing.
    await base.anvil.sendToken(base.usdc, on('ethereum'), '100');
    await Promise.all(chains.map((c) => c.mine(TEST_CONFIRMATIONS)));
    expect(await watchers[0]!.tick()).toBe(1);
    expect(await watchers[1]!.tick()).toBe(1);

    expect(await getIntent(t, live.key, intent.id)).toMatchObject({ status: 'completed', amount_received: 10 });
    const rows = json<{ data: TransactionObject[] }>(await t.call(live.key, 'GET', '/transactions?type=deposit')).data;
    expect(rows.map((r) => `${r.network}:${r.amount}`).sort()).toEqual(['base:6', 'ethereum:4']);
  });
});

describe('the running worker', () => {
  it('startBackgroundWork runs a watcher per network that credits a confirmed deposit on its own', async () => {
    const address = await createAddress(t, live.key, { asset: 'ETH', network: 'base' });
    const stop = await startBackgroundWork(t.ctx, pino({ level: 'silent' }));
    try {
      const hash = await base.anvil.sendEth(address.address, '1.5');
      await base.anvil.mine(TEST_CONFIRMATIONS);
      await expect
        .poll(async () => json<{ data: TransactionObject[] }>(await t.call(live.key, 'GET', '/transactions')).data.find((r) => r.tx_hash === hash)?.status, {
          timeout: 20_000,
          interval: 200,
        })
        .toBe('confirmed');
    } finally {
      await stop();
    }
  });
});

describe('each network on its own chain', () => {
  it('a watcher whose RPC URL serves another chain than the catalog names reads nothing and says which', async () => {
    const misdirected = watcherFor(t, { ...ethereum, anvil: base.anvil });
    const intent = await createIntent(t, live.key, { amount: '5', currencies: ['USDC'] });
    const onEthereum = intent.addresses.find((a) => a.network === 'ethereum')!.address;
    await base.anvil.sendToken(base.usdc, onEthereum, '5');
    await base.anvil.mine(TEST_CONFIRMATIONS);
    await expect(misdirected.tick()).rejects.toThrow('ethereum: the RPC URL serves chain 8453, not 31337; the watcher reads nothing until it is fixed');
    expect(await getIntent(t, live.key, intent.id)).toMatchObject({ amount_received: 0 });
  });
});
