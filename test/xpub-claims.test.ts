import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EvmXpub } from '../src/providers/chains/evm-xpub.js';
import { XPUB_GAP } from '../src/custody/xpub-custody.js';
import { workerSerializers, type TestApp } from './support/app.js';
import { startAnvil, type Anvil } from './support/evm/anvil.js';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../src/cli/run.js';
import { startLiveEvmApp, TEST_XPUB, testCatalogFile, type WatchedNetwork } from './support/evm/live-app.js';
import { createTenant, errorOf, postIntent, json, type IntentEnvelope } from './support/partner.js';

const xpub = EvmXpub.parse(TEST_XPUB);
let anvil: Anvil;
let ethereum: WatchedNetwork;
const apps: TestApp[] = [];

async function liveApp(options: { claimXpubs: boolean }): Promise<TestApp> {
  const t = await startLiveEvmApp([ethereum], undefined, {}, {}, { claimXpubs: options.claimXpubs });
  apps.push(t);
  return t;
}

/** A live intent's ethereum address; or the refusal. */
async function liveAddress(t: TestApp, key: string): Promise<string> {
  const res = await postIntent(t, key, { amount: '10', currencies: ['USDC'] });
  expect(res.statusCode, res.body).toBe(201);
  return json<IntentEnvelope>(res).addresses.find((a) => a.network === 'ethereum')!.address;
}

async function claims(t: TestApp) {
  const res = await t.admin('GET', '/xpub-claims');
  expect(res.statusCode, res.body).toBe(200);
  return json<{ data: { family: string; claimed: boolean; next_index: number; claim: { how: string; start_index: number } | null }[] }>(res).data;
}

beforeAll(async () => {
  anvil = await startAnvil();
  ethereum = { network: 'ethereum', anvil, usdc: await anvil.deployToken() };
});
afterEach(async () => {
  for (const t of apps.splice(0)) await t.close();
});
afterAll(async () => {
  await anvil?.close();
});

describe('one xpub, one database', () => {
  it('two databases with the same xpub: the second hands out no live address (503 naming the claim to run) until told where to start, then starts there, past the first one\'s', async () => {
    const first = await liveApp({ claimXpubs: true });
    const firstKey = (await createTenant(first, { mode: 'live' })).key;
    const handedOut = [await liveAddress(first, firstKey), await liveAddress(first, firstKey), await liveAddress(first, firstKey)];
    expect(handedOut).toEqual([0, 1, 2].map((i) => xpub.address(i)));

    const second = await liveApp({ claimXpubs: false });
    const secondKey = (await createTenant(second, { mode: 'live' })).key;
    const refused = await postIntent(second, secondKey, { amount: '10', currencies: ['USDC'] });
    expect(refused.statusCode).toBe(503);
    expect(errorOf(refused)).toMatchObject({ code: 'provider_unavailable' });
    expect(errorOf(refused).message).toContain('this database has not claimed the configured xpub');
    expect(errorOf(refused).message).toContain('connect-payments xpub claim evm --start-index <N> (or --first-use)');
    expect(await claims(second)).toMatchObject([{ family: 'evm', claimed: false, claim: null, next_index: 0 }]);

    const claim = await second.admin('POST', '/xpub-claims', { family: 'evm', start_index: 3 });
    expect(claim.statusCode, claim.body).toBe(200);
    expect(json(claim)).toMatchObject({ object: 'xpub_claim', family: 'evm', fingerprint: xpub.fingerprint, claimed: true, claim: { how: 'declared', start_index: 3 }, next_index: 3 });
    const next = await liveAddress(second, secondKey);
    expect(next).toBe(xpub.address(3));
    expect(handedOut).not.toContain(next);
  });

  it('claiming again only moves the next index up (how a restored backup is moved past the newer database); start_index and first_use are one or the other', async () => {
    const t = await liveApp({ claimXpubs: false });
    expect(json(await t.admin('POST', '/xpub-claims', { family: 'evm', first_use: true }))).toMatchObject({ claim: { how: 'first_use', start_index: 0 }, next_index: 0 });
    expect(json(await t.admin('POST', '/xpub-claims', { family: 'evm', start_index: 40 }))).toMatchObject({ claim: { how: 'first_use' }, next_index: 40 });
    expect(json(await t.admin('POST', '/xpub-claims', { family: 'evm', start_index: 7 }))).toMatchObject({ next_index: 40 });
    for (const body of [{ family: 'evm' }, { family: 'evm', start_index: 1, first_use: true }]) {
      const res = await t.admin('POST', '/xpub-claims', body);
      expect(res.statusCode).toBe(422);
      expect(errorOf(res)).toMatchObject({ code: 'parameter_invalid', param: 'start_index' });
    }
    const tron = await t.admin('POST', '/xpub-claims', { family: 'tron', first_use: true });
    expect(tron.statusCode).toBe(422);
    expect(errorOf(tron)).toMatchObject({ code: 'parameter_invalid', param: 'family' });
  });

  it('a database that handed out this xpub\'s addresses before claims existed adopts it at its next address; one whose addresses came from another xpub does not', async () => {
    const t = await liveApp({ claimXpubs: false });
    const key = (await createTenant(t, { mode: 'live' })).key;
    await t.db.query("INSERT INTO derivation_counters (family, next_index) VALUES ('evm', 1)");
    await t.db.query("INSERT INTO derived_addresses (family, derivation_index, address, network) VALUES ('evm', 0, '0x000000000000000000000000000000000000dEaD', 'ethereum')");
    expect((await postIntent(t, key, { amount: '10', currencies: ['USDC'] })).statusCode).toBe(503);
    await t.db.query("UPDATE derived_addresses SET address = $1 WHERE family = 'evm'", [xpub.address(0)]);
    expect(await liveAddress(t, key)).toBe(xpub.address(1));
    expect(await claims(t)).toMatchObject([{ claimed: true, claim: { how: 'adopted' }, next_index: 2 }]);
  });

  it(`a restored backup whose next index is behind: before its first address, every address within ${XPUB_GAP} of the next index that holds ETH or a token on chain is skipped`, async () => {
    // What the newer database handed out after the backup was taken, and customers paid: index 1 got ETH, index 4 USDC.
    await anvil.sendEth(xpub.address(1), '0.5');
    await anvil.sendToken(ethereum.usdc, xpub.address(4), '25');
    const restored = await liveApp({ claimXpubs: true });
    const key = (await createTenant(restored, { mode: 'live' })).key;
    expect(await liveAddress(restored, key)).toBe(xpub.address(5));
    expect(await liveAddress(restored, key)).toBe(xpub.address(6));
    expect(await claims(restored)).toMatchObject([{ claimed: true, next_index: 7 }]);
  });

  it('a node that cannot be read does not stop live addresses (one provider\'s outage would stop intents on every network): the address is handed out', async () => {
    const t = await startLiveEvmApp([{ ...ethereum, anvil: { ...anvil, url: 'http://127.0.0.1:9' } }], undefined, {}, {}, { claimXpubs: true });
    apps.push(t);
    const key = (await createTenant(t, { mode: 'live' })).key;
    expect(await liveAddress(t, key)).toBe(xpub.address(0));
  });

  it('connect-payments xpub claim <family> --start-index N claims through the operator API, xpub status shows it; a start index that is not a number is a usage error', async () => {
    const t = await liveApp({ claimXpubs: false });
    const env = {
      CONNECT_DATA_DIR: path.join(os.tmpdir(), 'xpub-cli-no-server-here'),
      CONNECT_EVM_XPUB: TEST_XPUB,
      CONNECT_EVM_RPC_ETHEREUM: anvil.url,
      CONNECT_CATALOG_FILE: testCatalogFile([ethereum]),
    };
    const cli = async (...argv: string[]) => {
      const out = { stdout: '', stderr: '' };
      const io = { stdout: { write: (text: string) => (out.stdout += text) }, stderr: { write: (text: string) => (out.stderr += text) } };
      return { code: await runCli(argv, io, async () => ({ ...t.db, close: async () => {} }), env, workerSerializers()), ...out };
    };
    const claimed = await cli('xpub', 'claim', 'evm', '--start-index', '12');
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ object: 'xpub_claim', family: 'evm', claimed: true, claim: { how: 'declared', start_index: 12 }, next_index: 12 });
    expect(JSON.parse((await cli('xpub', 'status')).stdout)).toMatchObject({ data: [{ family: 'evm', claimed: true, next_index: 12 }] });
    expect((await cli('xpub', 'claim', 'evm', '--start-index', 'twelve')).code).toBe(2);
  });
});
