import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { Catalog } from '../../src/domain/catalog.js';
import { liveTronFrom } from '../../src/providers/chains/live-tron.js';
import { tronTransactionKind } from '../../src/providers/chains/tron/http-api.js';
import { chainWatchers } from '../../src/workers/background.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTenant, creditDirect, extraKey, insertLiveAddress } from '../support/partner.js';
import { FakeTronNode } from '../support/tron/fake-node.js';
import { HOT_WALLET, HOT_WALLET_KEY, USDT, quiet } from '../support/tron/live-payouts.js';
import { TEST_TRON_XPUB } from '../support/tron/xpub.js';

const API_KEY = 'b7e1c0de-4a1f-4bb1-9d6f-0123456789ab';
let node: FakeTronNode;
let t: TestApp;

beforeAll(async () => {
  node = await FakeTronNode.start();
  node.mine(1);
  node.mintToken(USDT, HOT_WALLET, 10n ** 15n);
  node.setTrx(HOT_WALLET, 10n ** 15n);
  // As an operator sets it: CONNECT_TRON_API_KEY_TRON beside the endpoints.
  const env = loadConfig({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: `${node.url}/jsonrpc`, CONNECT_TRON_HTTP_TRON: node.url, CONNECT_TRON_API_KEY_TRON: API_KEY });
  t = await startTestApp({ tron: env.tron, tronPayouts: { ...env.tronPayouts, signer: { key: HOT_WALLET_KEY }, timeoutMs: 2_000 } });
});
afterAll(async () => {
  await t?.close();
  await node?.close();
});

describe("TronGrid's API key (CONNECT_TRON_API_KEY_<NETWORK>)", () => {
  it('every call to the network\'s node carries it in TRON-PRO-API-KEY: the quote\'s pricing, the watcher\'s JSON-RPC and HTTP API, reconciliation', async () => {
    const tenant = await createTenant(t);
    const key = await extraKey(t, tenant.organizationId, 'live');
    const addressId = await insertLiveAddress(t, tenant.organizationId, { asset: 'USDT', network: 'tron' });
    await creditDirect(t, tenant.organizationId, { addressId, network: 'tron', amount: '100' }, 'live');
    const quote = await t.call(key, 'POST', '/payouts/quote', {
      body: { asset: 'USDT', amount: '5', destination: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', network_hint: 'tron' },
      idempotencyKey: randomUUID(),
    });
    expect(quote.statusCode, quote.body).toBe(201);
    // The fake node speaks no JSON-RPC: the watcher's tick and the reconciliation fail, after their calls arrived.
    for (const watcher of chainWatchers(t.ctx, quiet as never)) await watcher.tick().catch(() => {});
    await t.admin('POST', '/reconciliation?network=tron');
    await tronTransactionKind(t.ctx.liveTron!.apiUrls.get('tron')!, t.ctx.liveTron!.headers.get('tron'))('ab'.repeat(32)).catch(() => {});

    const paths = new Set(node.apiKeys.map((call) => call.path));
    for (const path of ['/wallet/getchainparameters', '/wallet/triggerconstantcontract', '/jsonrpc', '/wallet/gettransactionbyid']) expect(paths).toContain(path);
    expect(node.apiKeys.filter((call) => call.key !== API_KEY)).toEqual([]);
  });

  it('a key for a network without an RPC URL, or one that is not a header value, is refused at start without echoing it', () => {
    const catalog = Catalog.load();
    const config = loadConfig({ CONNECT_TRON_XPUB: TEST_TRON_XPUB, CONNECT_TRON_RPC_TRON: 'https://api.trongrid.io/jsonrpc', CONNECT_TRON_API_KEY_NILE: API_KEY });
    expect(() => liveTronFrom(config.tron, config.tronPayouts, catalog)).toThrow('CONNECT_TRON_API_KEY_NILE set for a network without CONNECT_TRON_RPC_<NETWORK>');
    let message = '';
    try {
      loadConfig({ CONNECT_TRON_API_KEY_TRON: `${API_KEY}\n` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('CONNECT_TRON_API_KEY_TRON must be printable ASCII without spaces (an API key)');
  });
});
