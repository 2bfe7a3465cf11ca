import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { Address } from 'viem';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { Catalog } from '../../../src/domain/catalog.js';
import { systemClock, type Clock } from '../../../src/domain/clock.js';
import { rpcChainReader, type EvmChainReader } from '../../../src/providers/chains/evm-rpc.js';
import type { Database } from '../../../src/store/database.js';
import { EvmWatcher } from '../../../src/workers/evm-watcher.js';
import type { Config, EvmConfig } from '../../../src/config.js';
import type { ContextOptions } from '../../../src/context.js';
import { startTestApp, type Tenant, type TestApp } from '../app.js';
import { createTenant } from '../partner.js';
import { startAnvil, type Anvil } from './anvil.js';

/** Confirmations every pair of a watched network needs in these tests. */
export const TEST_CONFIRMATIONS = 3;

/**
 * The second account's xpub (m/44'/60'/1') of the development mnemonic, so that no deposit address is one of
 * anvil's funded accounts (m/44'/60'/0'/0/i), which tests use as payer and hot wallet.
 */
export const TEST_XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync('test test test test test test test test test test test junk')).derive("m/44'/60'/1'")
  .publicExtendedKey;

/** Anvil's development account 1, funded with 10,000 ETH: the hot wallet that signs live payouts in tests. */
export const HOT_WALLET_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const HOT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

export interface WatchedNetwork {
  network: string;
  anvil: Anvil;
  /** The test token standing in for the catalog's USDC on this network. */
  usdc: Address;
  /** Catalog token contracts to replace beyond USDC's, by asset, as the catalog spells them (Tron's in base58). */
  tokens?: Record<string, string>;
}

/**
 * The shipped catalog with each watched network's chain id replaced by its anvil's, its USDC contract (and its
 * other `tokens`) by the test token, and every pair on it needing TEST_CONFIRMATIONS; written to a temporary file
 * for CONNECT_CATALOG_FILE.
 */
export function testCatalogFile(networks: WatchedNetwork[]): string {
  const data = structuredClone(Catalog.load().data);
  for (const network of data.networks) {
    const watched = networks.find((n) => n.network === network.code);
    if (watched) network.chain_id = watched.anvil.chainId;
  }
  for (const asset of data.assets) {
    for (const entry of asset.networks) {
      const watched = networks.find((n) => n.network === entry.network);
      if (!watched) continue;
      entry.confirmations_required = TEST_CONFIRMATIONS;
      const contract = asset.code === 'USDC' ? watched.usdc : watched.tokens?.[asset.code];
      if (contract) entry.token_contract = contract;
    }
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'live-evm-catalog-')), 'catalog.json');
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

/** The settings of live keys on the given anvil chains, as an operator sets them (docs/live-evm.md). */
export function liveEvmConfig(networks: WatchedNetwork[], evm: Partial<EvmConfig> = {}): Partial<Config> {
  return {
    catalogFile: testCatalogFile(networks),
    evm: {
      xpub: TEST_XPUB,
      rpcUrls: Object.fromEntries(networks.map((n) => [n.network, n.anvil.url])),
      pollSeconds: 1,
      batchBlocks: 50,
      reorgWindow: 64,
      forkConfirmSeconds: 60,
      // A proof that a payout paid nothing is looked at twice within one attempt: tests decide when time passes.
      notSentConfirmSeconds: 0,
      // Any sweep finds an unmined payout stuck: tests decide when a block is mined.
      rebroadcastSeconds: 0,
      gapFillSeconds: 60,
      rpcTimeoutMs: 5_000,
      signer: { key: HOT_WALLET_KEY },
      ...evm,
    },
    // Every sweep looks at every open payout again: tests decide when blocks are mined.
    livePayouts: { leaseSeconds: 120, recheckSeconds: 0, sweepLimit: 100, sweepSeconds: 5, sweepSecondsByNetwork: {} },
  };
}

/** A test app whose live keys use the given anvil chains. */
export function startLiveEvmApp(
  networks: WatchedNetwork[],
  existing?: TestApp['testDb'],
  options: ContextOptions = {},
  evm: Partial<EvmConfig> = {},
  setup: Parameters<typeof startTestApp>[3] = {},
): Promise<TestApp> {
  return startTestApp(liveEvmConfig(networks, evm), existing, options, setup);
}

/** A logger for workers and sweeps whose warnings a test does not look at. */
export const quiet = { warn: () => {}, error: () => {} };

/**
 * A watcher as the worker builds one, counting in the app's metrics; `chain` and `db` replace the real ones to
 * simulate failures, `clock` moves a quarantined deposit's retry within reach.
 */
export function watcherFor(
  t: TestApp,
  network: WatchedNetwork,
  options: { chain?: EvmChainReader; db?: Database; batchBlocks?: number; clock?: Clock; forkConfirmSeconds?: number } = {},
): EvmWatcher {
  return new EvmWatcher(
    options.db ?? t.db,
    options.chain ?? rpcChainReader(network.anvil.url),
    t.ctx.catalog,
    options.clock ?? systemClock,
    async () => ({ snapshot: await t.ctx.prices.current(), maxAgeSeconds: t.ctx.config.pricesMaxAgeSeconds }),
    { network: network.network, batchBlocks: options.batchBlocks ?? 50, reorgWindow: 64, forkConfirmSeconds: options.forkConfirmSeconds ?? 60 },
    quiet,
    t.ctx.metrics,
  );
}

/** Anvil serving ethereum, with its test USDC, to a live app, and a live tenant: where live EVM test files start. */
export interface LiveEthereum {
  anvil: Anvil;
  ethereum: WatchedNetwork;
  t: TestApp;
  live: Tenant;
  /** A watcher of ethereum as the worker builds one, on `clock` (the system's by default). */
  watcher(clock?: Clock): EvmWatcher;
}

/**
 * Registers the file's hooks: a LiveEthereum started before its tests and stopped after, and one watcher tick
 * before each test over what is on chain, so every scenario starts from a settled cursor. Its fields are set
 * once the tests run.
 */
export function useLiveEthereum(): LiveEthereum {
  const chain = { watcher: (clock?: Clock) => watcherFor(chain.t, chain.ethereum, { clock }) } as LiveEthereum;
  beforeAll(async () => {
    chain.anvil = await startAnvil();
    chain.ethereum = { network: 'ethereum', anvil: chain.anvil, usdc: await chain.anvil.deployToken() };
    chain.t = await startLiveEvmApp([chain.ethereum]);
    chain.live = await createTenant(chain.t, { mode: 'live' });
  });
  afterAll(async () => {
    await chain.t?.close();
    await chain.anvil?.close();
  });
  beforeEach(async () => {
    await chain.watcher().tick();
  });
  return chain;
}
