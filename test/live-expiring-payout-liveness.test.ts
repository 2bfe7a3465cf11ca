import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundWork } from '../src/workers/background.js';
import { startTestApp, type TestApp } from './support/app.js';
import { leaseLapses } from './support/crash-points.js';
import { freshWallet, useSolanaPayoutWorld } from './support/solana/live-payouts.js';
import { HOT_WALLET_KEY, tronPayoutKit } from './support/tron/live-payouts.js';
import { TEST_TRON_XPUB } from './support/tron/xpub.js';

/**
 * A Tron node that answers what a quote asks (the chain's prices, a recipient's balance) and never answers what a
 * payout then calls: it takes the request and hangs.
 */
let dead: http.Server;
let hanging = 0;
const QUOTE_ANSWERS: Record<string, unknown> = {
  '/wallet/getchainparameters': { chainParameter: [{ key: 'getEnergyFee', value: 100 }, { key: 'getTransactionFee', value: 1000 }] },
  '/wallet/triggerconstantcontract': { result: { result: true }, constant_result: ['1'.padStart(64, '0')] },
};
const world = useSolanaPayoutWorld();
let t: TestApp;

beforeAll(async () => {
  dead = http.createServer((request, response) => {
    const answer = QUOTE_ANSWERS[request.url ?? ''];
    if (answer) response.end(JSON.stringify(answer));
    else hanging++;
  });
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
  // The Solana world's deployment with live Tron as well, whose node is dead; sweeps every second.
  t = await startTestApp(
    {
      ...world.t.ctx.config,
      evm: { ...world.t.ctx.config.evm, pollSeconds: 1 },
      tron: { xpub: TEST_TRON_XPUB, rpcUrls: { tron: `${url}/jsonrpc` } },
      tronPayouts: { ...world.t.ctx.config.tronPayouts, signer: { key: HOT_WALLET_KEY }, timeoutMs: 120_000 },
    },
    world.t.testDb,
    { prices: world.t.ctx.prices },
  );
});
afterAll(async () => {
  await t?.close();
  dead?.closeAllConnections();
  await new Promise((resolve) => dead?.close(resolve));
});

describe('a Tron node that is down', () => {
  it("delays only Tron's payouts: a Solana payout completes while every Tron call hangs", { timeout: 60_000 }, async () => {
    const kit = (network: string) => tronPayoutKit({ t }, network);
    const tron = kit('tron');
    const solana = kit('solana');
    const tenant = await tron.fundedTenant('100', 'USDT');
    const stuck = await tron.pay(tenant.key, tron.freshDestination(), '5', 'USDT');
    // Its first attempt hangs on the dead node; as if that process had died, a sweep takes it over, and hangs too.
    await leaseLapses(t, stuck.id);

    const payer = await solana.fundedTenant('100', 'USDC');
    const stop = await startBackgroundWork(t.ctx, pino({ level: 'silent' }));
    try {
      const onTime = await solana.pay(payer.key, await freshWallet(), '5', 'USDC');
      await expect
        .poll(
          async () => {
            world.chain.chain.mine(1);
            return (await solana.statusOf(payer.key, onTime.id)).status;
          },
          { timeout: 30_000, interval: 200 },
        )
        .toBe('completed');
      // Meanwhile the Tron node answered nothing: its payout never got further than its reservation.
      expect(hanging).toBeGreaterThan(0);
      expect(await tron.statusOf(tenant.key, stuck.id)).toMatchObject({ status: 'pending', tx_hash: null });
    } finally {
      await stop();
    }
  });
});
