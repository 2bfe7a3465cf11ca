import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/domain/clock.js';
import { rpcSolanaReader } from '../../../src/providers/chains/solana/solana-rpc.js';
import type { ReconciliationAnswer } from '../../../src/routes/admin/reconciliation.js';
import { SolanaWatcher } from '../../../src/workers/solana-watcher.js';
import { startTestApp, type Tenant, type TestApp } from '../../support/app.js';
import { quiet } from '../../support/evm/live-app.js';
import { createAddress, createTenant, json } from '../../support/partner.js';
import { solanaRpcWorld, USDC_MINT } from '../../support/solana/rpc-world.js';

let world: Awaited<ReturnType<typeof solanaRpcWorld>>;
let t: TestApp;
let live: Tenant;

const watcher = () =>
  new SolanaWatcher(
    t.db,
    rpcSolanaReader(world.url, 5_000),
    t.ctx.catalog,
    systemClock,
    async () => ({ snapshot: await t.ctx.prices.current(), maxAgeSeconds: t.ctx.config.pricesMaxAgeSeconds }),
    { network: 'solana', watchHoursAfterExpiry: 72, poolLowThreshold: 1, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 },
    quiet as never,
    t.ctx.metrics,
  );

async function reconcileSolana(): Promise<Map<string, ReconciliationAnswer['data'][number]>> {
  const res = await t.admin('POST', '/reconciliation?network=solana');
  expect(res.statusCode, res.body).toBe(200);
  return new Map(json<ReconciliationAnswer>(res).data.map((line) => [line.asset, line]));
}

beforeAll(async () => {
  world = await solanaRpcWorld();
  t = await startTestApp({ solana: { rpcUrls: { solana: world.url }, pollSeconds: 1, poolLowThreshold: 1, watchHoursAfterExpiry: 72, rpcTimeoutMs: 5_000, signer: null, payoutMaxSignings: 3, payoutExpiryConfirmSeconds: 0, maxCallsPerTick: 1000, idleHours: 24, idlePollSeconds: 600 } });
  live = await createTenant(t, { mode: 'live' });
  const keys = await Promise.all([0, 1].map(async (i) => ({ owner: (await generateKeyPairSigner()).address, derivation_path: `m/44'/501'/${i}'/0'` })));
  expect((await t.admin('POST', '/solana/owner-keys', { network: 'solana', keys })).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await world?.close();
});

describe('Solana reconciled against the ledger (litesvm behind a JSON-RPC server)', () => {
  it('an SPL deposit is read in the owner\'s associated token account: ok once credited; SOL sent to it is uncredited, naming the owner', async () => {
    const owner = (await createAddress(t, live.key, { asset: 'USDC', network: 'solana' })).address;
    await world.payToken(owner, USDC_MINT, 7_250_000n);
    expect(await watcher().tick()).toBe(1);

    const lines = await reconcileSolana();
    expect(lines.get('USDC')).toMatchObject({ status: 'ok', on_chain_total: '7.25', ledger_total: '7.25', drift: '0', hot_wallet: null, addresses: [] });
    expect(lines.get('SOL')).toMatchObject({ status: 'ok', on_chain_total: '0', deposit_addresses: { count: 1 } });

    await world.paySol(owner, 500_000_000n);
    await watcher().tick();
    expect((await reconcileSolana()).get('SOL')).toMatchObject({
      status: 'surplus',
      drift: '0.5',
      addresses: [{ address: owner, organization_ids: [live.organizationId], on_chain: '0.5', credited: '0', pending: '0', drift: '0.5', reason: 'uncredited' }],
    });
  });
});
