import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banner } from '../../../src/banner.js';
import { loadConfig } from '../../../src/config.js';
import { Catalog } from '../../../src/domain/catalog.js';
import { liveSummary, withOwnerPools } from '../../../src/use-cases/live-summary.js';
import { solanaSigner, solanaSignerFromFile } from '../../../src/providers/chains/solana/signer.js';
import { SolanaDriver } from '../../../src/providers/chains/solana/payout-driver.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { parseExposition, valueOf } from '../../support/metrics.js';
import { createTenant } from '../../support/partner.js';
import { freshWallet, keygenFile } from '../../support/solana/live-payouts.js';

// Port 9 (discard): nothing answers there; what matters is that the credentials in the URL never show.
const RPC_WITH_KEY = 'http://127.0.0.1:9/sol-api-key-12345';

describe('live Solana payout settings', () => {
  it('one signer at most: CONNECT_SOLANA_SIGNER_KEY or CONNECT_SOLANA_SIGNER_KEY_FILE; 3 signings a payout and expiries confirmed 60 s apart unless set', () => {
    expect(loadConfig({}).solana).toMatchObject({ signer: null, payoutMaxSignings: 3, payoutExpiryConfirmSeconds: 60 });
    expect(loadConfig({ CONNECT_SOLANA_PAYOUT_EXPIRY_CONFIRM_SECONDS: '0' }).solana.payoutExpiryConfirmSeconds).toBe(0);
    expect(loadConfig({ CONNECT_SOLANA_SIGNER_KEY: '[1]' }).solana.signer).toEqual({ key: '[1]' });
    expect(loadConfig({ CONNECT_SOLANA_SIGNER_KEY_FILE: '/run/secrets/solana.json' }).solana.signer).toEqual({ keyFile: '/run/secrets/solana.json' });
    expect(loadConfig({ CONNECT_SOLANA_PAYOUT_MAX_SIGNINGS: '5' }).solana.payoutMaxSignings).toBe(5);
    expect(() => loadConfig({ CONNECT_SOLANA_SIGNER_KEY: '[1]', CONNECT_SOLANA_SIGNER_KEY_FILE: '/k' })).toThrow(
      /Set one of CONNECT_SOLANA_SIGNER_KEY, CONNECT_SOLANA_SIGNER_KEY_FILE/,
    );
  });

  it("a solana-keygen key file signs as its address; a malformed key, or one whose halves are two wallets', is refused without being echoed", async () => {
    const key = await keygenFile();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'solana-key-')), 'id.json');
    fs.writeFileSync(file, `${key.json}\n`);
    expect((await solanaSignerFromFile(file)).address).toBe(key.address);

    const bytes = JSON.parse(key.json) as number[];
    const other = JSON.parse((await keygenFile()).json) as number[];
    const bad = ['secret-not-json', JSON.stringify(bytes.slice(0, 32)), JSON.stringify([...bytes.slice(0, 63), 256]), JSON.stringify([...bytes.slice(0, 32), ...other.slice(32)])];
    for (const given of bad) {
      const error = (await solanaSigner(given).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/^The Solana signer key('s public half is not the public key of its secret half: it)? must be a JSON array of 64 bytes/);
      expect(error.message).not.toContain(given.slice(1, 20));
      expect(error.cause).toBeUndefined();
    }
  });

  it('a node that does not answer fails the call without naming its URL', async () => {
    const driver = new SolanaDriver(Catalog.load(), new Map([['solana', RPC_WITH_KEY]]), await solanaSigner((await keygenFile()).json), 1_000);
    const error = (await driver.finalPoint('solana').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^Solana getEpochInfo: /);
    expect(error.message).not.toContain('sol-api-key');
  });
});

describe('a live Solana network with a hot wallet', () => {
  let t: TestApp;
  let key: Awaited<ReturnType<typeof keygenFile>>;
  beforeAll(async () => {
    key = await keygenFile();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'solana-key-')), 'id.json');
    fs.writeFileSync(file, key.json);
    const config = loadConfig({ CONNECT_SOLANA_RPC_SOLANA: RPC_WITH_KEY, CONNECT_SOLANA_SIGNER_KEY_FILE: file });
    t = await startTestApp({ solana: config.solana });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('/readyz and the banner name the payout signer by its address and kind, never the key; quotes route over Solana and the gauge says payouts="yes"', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/readyz' })).body;
    expect(JSON.parse(body).live).toMatchObject({ solana_payout_signer: { kind: 'key_file', address: key.address } });
    const live = await withOwnerPools(liveSummary(t.ctx.config, t.ctx.liveEvm, t.ctx.liveSolana), t.db, t.ctx.liveSolana);
    const text = banner({ base: 'http://127.0.0.1:8080', database: { kind: 'pglite', dataDir: '/tmp/data' }, demo: null, token: { token: 'x'.repeat(32), origin: 'environment' }, metricsUrl: null, live });
    expect(text).toContain(`  Solana signer:   ${key.address} (key file)\n`);
    for (const shown of [body, text]) {
      expect(shown).not.toContain(key.json.slice(1, 30));
      expect(shown).not.toContain('sol-api-key');
    }

    const tenant = await createTenant(t, { mode: 'live' });
    const quoted = await t.call(tenant.key, 'POST', '/payouts/quote', {
      body: { asset: 'USDC', network_hint: 'solana', amount: '10', destination: await freshWallet() },
      idempotencyKey: randomUUID(),
    });
    expect(quoted.statusCode, quoted.body).toBe(201);
    expect(valueOf(parseExposition(await t.ctx.metrics.scrape()), 'connect_live_network', { network: 'solana', payouts: 'yes' })).toBe(1);
  });

  it('without a signer, /readyz says solana_payout_signer null and the banner says payouts are refused', async () => {
    const config = loadConfig({ CONNECT_SOLANA_RPC_SOLANA: RPC_WITH_KEY });
    const summary = liveSummary(config, null, { rpcUrls: new Map(Object.entries(config.solana.rpcUrls)), poolLowThreshold: 1, payoutSigner: null });
    expect(summary.solana_payout_signer).toBeNull();
    const text = banner({ base: 'http://127.0.0.1:8080', database: { kind: 'pglite', dataDir: '/tmp/data' }, demo: null, token: { token: 'x'.repeat(32), origin: 'environment' }, metricsUrl: null, live: summary });
    expect(text).toContain('  Solana signer:   none, live Solana payouts are refused (set CONNECT_SOLANA_SIGNER_KEY_FILE or _KEY)\n');
  });
});
