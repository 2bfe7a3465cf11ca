import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banner, LIVE_SETUP_DOCS } from '../src/banner.js';
import { loadConfig } from '../src/config.js';
import { liveSummary, redactUrl } from '../src/use-cases/live-summary.js';
import { startTestApp, type TestApp } from './support/app.js';
import { HOT_WALLET, HOT_WALLET_KEY, TEST_XPUB } from './support/evm/live-app.js';
import { parseExposition, valueOf } from './support/metrics.js';
import { errorOf } from './support/partner.js';
import { EVM_DESTINATION, executePayout, quotePayout } from './support/payouts.js';
import { HOT_WALLET as TRON_HOT_WALLET, HOT_WALLET_KEY as TRON_HOT_WALLET_KEY } from './support/tron/live-payouts.js';
import { TEST_TRON_XPUB } from './support/tron/xpub.js';

// Port 9 (discard): nothing here calls the endpoint; what matters is that its credentials never show.
const RPC_WITH_SECRETS = 'http://user:rpc-password@127.0.0.1:9/v2/rpc-path-key?apikey=rpc-query-key';
const SECRETS = ['rpc-password', 'rpc-path-key', 'rpc-query-key', HOT_WALLET_KEY.slice(2)];
const liveEnv = { CONNECT_EVM_XPUB: TEST_XPUB, CONNECT_EVM_RPC_ETHEREUM: RPC_WITH_SECRETS };

let withSigner: TestApp;
let withoutSigner: TestApp;
beforeAll(async () => {
  withSigner = await startTestApp({ evm: loadConfig({ ...liveEnv, CONNECT_EVM_SIGNER_KEY: HOT_WALLET_KEY }).evm });
  withoutSigner = await startTestApp({ evm: loadConfig(liveEnv).evm }, withSigner.testDb);
});
afterAll(async () => {
  await withoutSigner.close();
  await withSigner.close();
});

const readyz = async (t: TestApp) => (await t.app.inject({ method: 'GET', url: '/readyz' })).body;
const bannerOf = (t: TestApp) =>
  banner({
    base: 'http://127.0.0.1:8080',
    database: { kind: 'pglite', dataDir: '/tmp/data' },
    demo: null,
    token: { token: 'x'.repeat(32), origin: 'environment' },
    metricsUrl: null,
    live: liveSummary(t.ctx.config, t.ctx.liveEvm, t.ctx.liveSolana, t.ctx.liveTron),
  });

describe('live configuration, visible and never secret', () => {
  it('the metrics show each live network served and whether its payouts can go out', async () => {
    const served = async (t: TestApp) => valueOf(parseExposition(await t.ctx.metrics.scrape()), 'connect_live_network', { network: 'ethereum', payouts: 'yes' }) ?? 0;
    const depositsOnly = async (t: TestApp) => valueOf(parseExposition(await t.ctx.metrics.scrape()), 'connect_live_network', { network: 'ethereum', payouts: 'no' }) ?? 0;
    expect({ yes: await served(withSigner), no: await depositsOnly(withSigner) }).toEqual({ yes: 1, no: 0 });
    expect({ yes: await served(withoutSigner), no: await depositsOnly(withoutSigner) }).toEqual({ yes: 0, no: 1 });
  });

  it('a URL is shown as its origin only: user part, path and query may hold credentials', () => {
    expect(redactUrl(RPC_WITH_SECRETS)).toBe('http://127.0.0.1:9/…');
    expect(redactUrl('https://rpc.example.com')).toBe('https://rpc.example.com');
  });

  it('/readyz names the live networks, their watchers and the payout signer, without a secret', async () => {
    const body = await readyz(withSigner);
    expect(JSON.parse(body).live).toEqual({
      networks: { ethereum: 'http://127.0.0.1:9/…' },
      watchers: ['ethereum'],
      payout_signer: { kind: 'key', address: HOT_WALLET },
    });
    for (const secret of SECRETS) expect(body).not.toContain(secret);
    expect(JSON.parse(await readyz(withoutSigner)).live.payout_signer).toBeNull();
  });

  it('the banner has a live section: networks and watchers, the signer, or the settings that would give one', () => {
    const signed = bannerOf(withSigner);
    expect(signed).toContain('  Live networks:   ethereum (http://127.0.0.1:9/…); watched here: ethereum\n');
    expect(signed).toContain(`  Payout signer:   ${HOT_WALLET} (key)\n`);
    for (const secret of SECRETS) expect(signed).not.toContain(secret);
    expect(bannerOf(withoutSigner)).toContain('  Payout signer:   none, live payouts are refused (set CONNECT_EVM_SIGNER_KEY, _KEY_FILE or _URL)\n');
  });

  it('Tron networks show beside EVM ones, their endpoints cut to the origin, their watchers listed, the Tron hot wallet by its address only', async () => {
    const tronRpc = 'http://user:rpc-password@127.0.0.1:9/rpc-path-key/jsonrpc?apikey=rpc-query-key';
    const both = await startTestApp(
      (({ evm, tron, tronPayouts }) => ({ evm, tron, tronPayouts }))(
        loadConfig({ ...liveEnv, CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: tronRpc, CONNECT_TRON_SIGNER_KEY: TRON_HOT_WALLET_KEY }),
      ),
      withSigner.testDb,
    );
    try {
      const body = await readyz(both);
      expect(JSON.parse(body).live).toEqual({
        networks: { ethereum: 'http://127.0.0.1:9/…', tron: 'http://127.0.0.1:9/…' },
        watchers: ['ethereum', 'tron'],
        payout_signer: null,
        tron_payout_signer: { kind: 'key', address: TRON_HOT_WALLET },
      });
      const text = bannerOf(both);
      expect(text).toContain('  Live networks:   ethereum (http://127.0.0.1:9/…), tron (http://127.0.0.1:9/…); watched here: ethereum, tron\n');
      expect(text).toContain(`  Tron signer:     ${TRON_HOT_WALLET} (key)\n`);
      for (const secret of [...SECRETS, TRON_HOT_WALLET_KEY]) {
        expect(body).not.toContain(secret);
        expect(text).not.toContain(secret);
      }
    } finally {
      await both.close();
    }
  });

  it('the banner says when no live network is configured', async () => {
    const sandboxOnly = await startTestApp({}, withSigner.testDb);
    try {
      expect(bannerOf(sandboxOnly)).toContain(
        '  Live networks:   none (live keys get no addresses; docs/live-evm.md, docs/live-tron.md, docs/live-solana.md set them up)\n',
      );
      expect(JSON.parse(await readyz(sandboxOnly)).live).toEqual({ networks: {}, watchers: [], payout_signer: null });
    } finally {
      await sandboxOnly.close();
    }
  });

  it('every set-up doc the banner names when no live network is configured exists', () => {
    for (const doc of LIVE_SETUP_DOCS) expect(fs.existsSync(new URL(`../${doc}`, import.meta.url)), doc).toBe(true);
  });

  it('a live payout without a signer is refused 503, naming the CONNECT_EVM_SIGNER_* settings: at the quote, and at execution before anything is reserved', async () => {
    const tenant = await withoutSigner.tenant({ mode: 'live' });
    const body = { asset: 'USDC', network_hint: 'ethereum', amount: '10', destination: EVM_DESTINATION };
    const signerSettings = /payout signer.*CONNECT_EVM_SIGNER_KEY, CONNECT_EVM_SIGNER_KEY_FILE or CONNECT_EVM_SIGNER_URL/;
    const quoted = await withoutSigner.call(tenant.key, 'POST', '/payouts/quote', { body, idempotencyKey: randomUUID() });
    expect(quoted.statusCode).toBe(503);
    expect(errorOf(quoted)).toMatchObject({ code: 'provider_unavailable', message: expect.stringMatching(signerSettings) });
    expect(errorOf(quoted).message).toMatch(/No quote was made\.$/);

    // Quoted by an instance that had the signer (same database), executed by one that has none.
    const quote = await quotePayout(withSigner, tenant.key, body);
    for (const attempt of [1, 2]) {
      const res = await executePayout(withoutSigner, tenant.key, quote.quote_id);
      expect(res.statusCode, `attempt ${attempt}`).toBe(503);
      expect(errorOf(res)).toMatchObject({ code: 'provider_unavailable', message: expect.stringMatching(signerSettings) });
      expect(errorOf(res).message).toMatch(/Nothing was reserved or sent\.$/);
      expect(errorOf(res).message).not.toContain('custody provider');
    }
    // The quote was not used up (a second execution is refused the same way, not as quote_already_used) and no payout exists.
    const payouts = await withoutSigner.call(tenant.key, 'GET', '/payouts');
    expect(payouts.json().data).toEqual([]);
  });
});
