import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutBoundary } from '../src/outbound/outcomes.js';
import { startBackgroundWork } from '../src/workers/background.js';
import { startTestApp, type TestApp } from './support/app.js';
import { startAnvil, type Anvil } from './support/evm/anvil.js';
import { HOT_WALLET, HOT_WALLET_KEY, startLiveEvmApp, TEST_XPUB, watcherFor, type WatchedNetwork } from './support/evm/live-app.js';
import { livePayoutKit, type LivePayoutWorld } from './support/evm/live-payouts.js';
import { recordingLog } from './support/logs.js';

/** How hosted RPC providers authenticate: a key in the URL's path, or in its query. */
const SECRETS = ['SECRETKEY123', 'SECRETKEY456'];

let anvil: Anvil;
let ethereum: WatchedNetwork;
let t: TestApp;
/** An RPC endpoint that answers every call with HTTP 500. */
let failing: http.Server;
let failingUrl: string;
/** While set, the next payout's work stops dead there, as a killed process stops. */
let stopAt: PayoutBoundary | null = null;
const world = {} as LivePayoutWorld;
const { pay, fundedTenant, freshDestination } = livePayoutKit(world);

beforeAll(async () => {
  anvil = await startAnvil();
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
  t = await startLiveEvmApp([ethereum], undefined, {
    atPayoutBoundary: (boundary) => {
      if (boundary !== stopAt) return Promise.resolve();
      stopAt = null;
      return new Promise(() => {});
    },
  });
  Object.assign(world, { anvil, ethereum, t });
  await watcherFor(t, ethereum).tick();
  failing = http.createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream unavailable'));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/v2/${SECRETS[0]}?apikey=${SECRETS[1]}`;
});

afterAll(async () => {
  await t?.close();
  await anvil?.close();
  await new Promise((resolve) => failing?.close(resolve));
});

describe("an RPC provider's API key in its URL", () => {
  it('never reaches a log line of the background work, a payout reason or a stored reconciliation error, when every call to it fails', async () => {
    // A live payout its process left right after the reservation, and a nonce gap a filler is due at.
    const tenant = await fundedTenant('20');
    stopAt = 'reserved';
    const payout = await pay(tenant.key, freshDestination(), '3');
    await t.db.query("UPDATE payouts SET next_attempt_at = now() - interval '1 hour' WHERE id = $1", [payout.id]);
    await t.db.query(
      `INSERT INTO evm_payout_txs (network, from_address, nonce, status, released_at)
       VALUES ('ethereum', $1, 1000, 'released', now() - interval '1 hour'), ('ethereum', $1, 1001, 'filling', NULL)`,
      [HOT_WALLET],
    );

    // Another instance on the same database, configured with the provider's URL, does all its background work.
    const instance = await startTestApp(
      {
        catalogFile: t.ctx.config.catalogFile,
        evm: { ...t.ctx.config.evm, xpub: TEST_XPUB, rpcUrls: { ethereum: failingUrl }, pollSeconds: 1, rpcTimeoutMs: 2_000, signer: { key: HOT_WALLET_KEY } },
        livePayouts: { leaseSeconds: 120, recheckSeconds: 0, sweepLimit: 100, sweepSeconds: 5, sweepSecondsByNetwork: {} },
        reconcileIntervalSeconds: 1,
      },
      t.testDb,
    );
    const recorded = recordingLog('debug');
    const stop = await startBackgroundWork(instance.ctx, recorded.log);
    const said = () => recorded.lines.join('');
    try {
      await expect
        .poll(
          async () => {
            const [row] = await t.db.query<{ last_error: string | null }>('SELECT last_error FROM payouts WHERE id = $1', [payout.id]);
            const reconciled = await t.db.query("SELECT 1 FROM reconciliation_results WHERE network = 'ethereum' AND status = 'unavailable'");
            return {
              payoutTried: row!.last_error !== null,
              reconciled: reconciled.length > 0,
              gapsTried: said().includes('filling nonce gaps failed'),
              watcherTried: said().includes('chain watcher ethereum failed'),
            };
          },
          { timeout: 30_000, interval: 100 },
        )
        .toEqual({ payoutTried: true, reconciled: true, gapsTried: true, watcherTried: true });
    } finally {
      await stop();
      await instance.close();
    }

    const stored = await t.db.query<{ text: string | null }>(
      `SELECT last_error AS text FROM payouts UNION ALL SELECT failure_reason FROM payouts UNION ALL SELECT error FROM reconciliation_results`,
    );
    const everything = [said(), ...stored.map((row) => row.text ?? '')].join('\n');
    // Stripped of the endpoint, not of what went wrong.
    expect(said()).toContain('HTTP request failed');
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
  });
});
