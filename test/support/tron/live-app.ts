import { parseUnits, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { evmHexFromTronAddress, tronAddressFromEvmHex } from '../../../src/providers/chains/tron/address.js';
import { tronTransactionKind } from '../../../src/providers/chains/tron/http-api.js';
import { tronChainReader } from '../../../src/providers/chains/tron/json-rpc-reader.js';
import type { Clock } from '../../../src/domain/clock.js';
import type { EvmWatcher } from '../../../src/workers/evm-watcher.js';
import { startTestApp, type Tenant, type TestApp } from '../app.js';
import { startAnvil, type Anvil } from '../evm/anvil.js';
import { HOT_WALLET_KEY, TEST_XPUB, testCatalogFile, watcherFor, type WatchedNetwork } from '../evm/live-app.js';
import { createTenant } from '../partner.js';
import { startFakeTronHttpApi, type FakeTronHttpApi } from './http-api.js';
import { TEST_TRON_XPUB } from './xpub.js';

/** Tron mainnet's chain id, as its node answers eth_chainId (0x2b6653dc): the catalog's, so anvil is started with it. */
export const TRON_CHAIN_ID = 728126428;

/**
 * Anvil standing in for a Tron node's JSON-RPC, with a TRC-20 (the ERC-20 shape) standing in for USDT, a live app
 * whose live keys use it as the operator configures Tron (docs/live-tron.md), and a live tenant. With `withEthereum`
 * the same anvil also serves ethereum (the test catalog names its chain id there too) through the EVM settings, with
 * a payout signer.
 */
export interface LiveTron {
  anvil: Anvil;
  tron: WatchedNetwork;
  ethereum: WatchedNetwork;
  t: TestApp;
  live: Tenant;
  /** The node's HTTP API, telling TRX transfers from TRC-10 ones. */
  httpApi: FakeTronHttpApi;
  /** The test USDT in its Tron spelling (T…), as the catalog names it. */
  usdt: string;
  /** A watcher of tron as the worker builds one, on `clock` (the system's by default). */
  watcher(clock?: Clock): EvmWatcher;
  /** Mints `amount` test USDT to a T… address (its 0x form on anvil); answers the transaction id as stored (64 hex, no 0x). */
  sendUsdt(to: string, amount: string): Promise<string>;
  /** Sends `amount` TRX (6 decimals: anvil's wei stand for sun) to a T… address; answers the transaction id as stored. */
  sendTrx(to: string, amount: string): Promise<string>;
}

const bare = (hash: Hex) => hash.slice(2);

export function useLiveTron(options: { withEthereum?: boolean } = {}): LiveTron {
  const chain = {
    watcher: (clock?: Clock) => watcherFor(chain.t, chain.tron, { chain: tronChainReader(chain.anvil.url, tronTransactionKind(chain.httpApi.url)), clock }),
  } as LiveTron;
  beforeAll(async () => {
    chain.anvil = await startAnvil({ chainId: TRON_CHAIN_ID });
    chain.httpApi = await startFakeTronHttpApi();
    const token = await chain.anvil.deployToken();
    chain.usdt = tronAddressFromEvmHex(token);
    chain.tron = { network: 'tron', anvil: chain.anvil, usdc: token, tokens: { USDT: chain.usdt } };
    chain.ethereum = { network: 'ethereum', anvil: chain.anvil, usdc: token };
    const base = loadConfig({});
    chain.t = await startTestApp({
      catalogFile: testCatalogFile(options.withEthereum ? [chain.tron, chain.ethereum] : [chain.tron]),
      evm: {
        ...base.evm,
        pollSeconds: 1,
        reorgWindow: 64,
        ...(options.withEthereum ? { xpub: TEST_XPUB, rpcUrls: { ethereum: chain.anvil.url }, signer: { key: HOT_WALLET_KEY } } : {}),
      },
      tron: { xpub: TEST_TRON_XPUB, rpcUrls: { tron: chain.anvil.url } },
      tronPayouts: { ...base.tronPayouts, httpUrls: { tron: chain.httpApi.url } },
    });
    chain.live = await createTenant(chain.t, { mode: 'live' });
  });
  afterAll(async () => {
    await chain.t?.close();
    await chain.anvil?.close();
    await chain.httpApi?.close();
  });
  beforeEach(async () => {
    await chain.watcher().tick();
  });
  chain.sendUsdt = async (to, amount) => bare(await chain.anvil.sendToken(chain.tron.usdc, evmHexFromTronAddress(to), amount));
  chain.sendTrx = async (to, amount) => {
    const hash = await chain.anvil.client.sendTransaction({ to: evmHexFromTronAddress(to) as Address, value: parseUnits(amount, 6), chain: null });
    await chain.anvil.client.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    return bare(hash);
  };
  return chain;
}
