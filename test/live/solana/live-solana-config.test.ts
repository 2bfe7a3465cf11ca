import { randomUUID } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banner } from '../../../src/banner.js';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { liveSummary, withOwnerPools } from '../../../src/use-cases/live-summary.js';
import { liveSolanaFrom } from '../../../src/providers/chains/solana/live-solana.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { HOT_WALLET_KEY, TEST_XPUB } from '../../support/evm/live-app.js';
import { createIntent, createTenant, errorOf } from '../../support/partner.js';

// Port 9 (discard): nothing here calls the endpoints; what matters is that their credentials never show.
const SOLANA_RPC = 'https://user:sol-password@127.0.0.1:9/sol-path-key?api-key=sol-query-key';
const EVM_RPC = 'http://127.0.0.1:9/evm-path-key';
const SECRETS = ['sol-password', 'sol-path-key', 'sol-query-key', 'evm-path-key'];
const catalog = Catalog.load();

describe('CONNECT_SOLANA_RPC_<NETWORK>', () => {
  it('maps to the catalog code as CONNECT_EVM_RPC_<NETWORK> does; without one live Solana is off', () => {
    expect(loadConfig({ CONNECT_SOLANA_RPC_SOLANA: SOLANA_RPC }).solana.rpcUrls).toEqual({ solana: SOLANA_RPC });
    expect(liveSolanaFrom(loadConfig({}).solana, catalog)).toBeNull();
  });

  it('a URL that is not http(s) is refused without echoing it (it may carry an API key)', () => {
    expect(() => loadConfig({ CONNECT_SOLANA_RPC_SOLANA: 'wss://secret-api-key@x' })).toThrow('CONNECT_SOLANA_RPC_SOLANA must be an http(s) JSON-RPC URL');
  });

  it('a network the catalog does not have, or whose addresses are not Solana, is refused at start', () => {
    expect(() => liveSolanaFrom(loadConfig({ CONNECT_SOLANA_RPC_DEVNET: SOLANA_RPC }).solana, catalog)).toThrow(
      'CONNECT_SOLANA_RPC_DEVNET names devnet, which is not a network of the catalog',
    );
    expect(() => liveSolanaFrom(loadConfig({ CONNECT_SOLANA_RPC_ETHEREUM: SOLANA_RPC }).solana, catalog)).toThrow(
      'CONNECT_SOLANA_RPC_ETHEREUM: ethereum is not a Solana network (its addresses are evm)',
    );
  });

  it('the pool threshold and the other settings have defaults and are checked', () => {
    expect(loadConfig({}).solana).toMatchObject({ pollSeconds: 15, poolLowThreshold: 100, watchHoursAfterExpiry: 72, rpcTimeoutMs: 10_000 });
    expect(loadConfig({ CONNECT_SOLANA_POOL_LOW: '5' }).solana.poolLowThreshold).toBe(5);
    expect(() => loadConfig({ CONNECT_SOLANA_POOL_LOW: '-1' })).toThrow('CONNECT_SOLANA_POOL_LOW must be a non-negative integer');
  });

  it('the watcher calls a tick may make are capped (150 by default, at least 2: an address and its token account); idle standalone addresses are read every 600 s after 24 h', () => {
    expect(loadConfig({}).solana).toMatchObject({ maxCallsPerTick: 150, idleHours: 24, idlePollSeconds: 600 });
    expect(loadConfig({ CONNECT_SOLANA_MAX_CALLS: '40', CONNECT_SOLANA_IDLE_HOURS: '6', CONNECT_SOLANA_IDLE_POLL_SECONDS: '120' }).solana).toMatchObject({ maxCallsPerTick: 40, idleHours: 6, idlePollSeconds: 120 });
    expect(() => loadConfig({ CONNECT_SOLANA_MAX_CALLS: '1' })).toThrow('CONNECT_SOLANA_MAX_CALLS must be at least 2');
  });
});

describe('EVM and Solana live side by side', () => {
  let t: TestApp;
  beforeAll(async () => {
    const env = { CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: EVM_RPC, CONNECT_SOLANA_RPC_SOLANA: SOLANA_RPC, CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY };
    const config = loadConfig(env);
    t = await startTestApp({ evm: config.evm, solana: config.solana });
    const owner = (await generateKeyPairSigner()).address;
    expect((await t.admin('POST', '/solana/owner-keys', { network: 'solana', keys: [{ owner, derivation_path: "m/44'/501'/0'/0'" }] })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a live intent gets an xpub address on the EVM network and a pool owner on Solana', async () => {
    const live = await createTenant(t, { mode: 'live' });
    const intent = await createIntent(t, live.key, { amount: '10', currencies: ['USDC'] });
    expect(intent.addresses.map((a) => a.network).sort()).toEqual(['ethereum', 'solana']);
    const solana = intent.addresses.find((a) => a.network === 'solana')!;
    expect(await t.db.query('SELECT 1 FROM solana_deposit_owners WHERE owner = $1 AND allocated_at IS NOT NULL', [solana.address])).toHaveLength(1);
    expect(intent.addresses.find((a) => a.network === 'ethereum')!.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('/readyz and the banner name both networks, redacted, their watchers and the owner pool, without a secret', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/readyz' })).body;
    expect(JSON.parse(body).live).toMatchObject({
      networks: { ethereum: 'http://127.0.0.1:9/…', solana: 'https://127.0.0.1:9/…' },
      watchers: ['ethereum', 'solana'],
      solana_owner_pools: { solana: { free: 0, low: true } },
    });
    const live = await withOwnerPools(liveSummary(t.ctx.config, t.ctx.liveEvm, t.ctx.liveSolana), t.db, t.ctx.liveSolana);
    const text = banner({ base: 'http://127.0.0.1:8080', database: { kind: 'pglite', dataDir: '/tmp/data' }, demo: null, token: { token: 'x'.repeat(32), origin: 'environment' }, metricsUrl: null, live });
    expect(text).toContain('  Solana owners:   solana 0 free (low: import more, docs/live-solana.md)\n');
    for (const secret of SECRETS) {
      expect(body).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
  });

  it('live payouts on Solana are refused at the quote, naming why, while its deposits are served; the gauge says so', async () => {
    const live = await createTenant(t, { mode: 'live' });
    const destination = (await generateKeyPairSigner()).address;
    const body = { asset: 'USDC', network_hint: 'solana', amount: '10', destination };
    const quoted = await t.call(live.key, 'POST', '/payouts/quote', { body, idempotencyKey: randomUUID() });
    expect(quoted.statusCode).toBe(503);
    expect(errorOf(quoted)).toMatchObject({ code: 'provider_unavailable', message: expect.stringContaining('Live payouts on solana need a hot wallet: set CONNECT_SOLANA_SIGNER_KEY_FILE') });
    const samples = parseExposition(await t.ctx.metrics.scrape());
    expect(valueOf(samples, 'connect_live_network', { network: 'solana', payouts: 'no' })).toBe(1);
    expect(valueOf(samples, 'connect_live_network', { network: 'ethereum', payouts: 'yes' })).toBe(1);
  });
});
