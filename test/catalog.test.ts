import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/domain/catalog.js';
import { DEFAULT_SETTINGS } from '../src/domain/organizations.js';
import { isValidAddress } from '../src/providers/chains/address-codecs.js';

const catalog = Catalog.load();

describe('catalog', () => {
  it('covers the pairs the contract requires, with lowercase network codes', () => {
    const required: Record<string, string[]> = {
      USDT: ['ethereum', 'tron', 'solana', 'polygon'],
      USDC: ['ethereum', 'solana', 'polygon', 'base', 'arbitrum'],
      ETH: ['ethereum', 'base', 'arbitrum'],
      BTC: ['bitcoin'],
      SOL: ['solana'],
      TRX: ['tron'],
    };
    for (const [asset, networks] of Object.entries(required)) {
      for (const network of networks) expect(catalog.hasPair(asset, network), `${asset}/${network}`).toBe(true);
    }
    for (const network of catalog.data.networks) expect(network.code).toBe(network.code.toLowerCase());
  });

  it('lists the seven fiat valuation currencies', () => {
    expect(catalog.data.fiat_currencies.map((f) => f.code)).toEqual(['USD', 'PEN', 'EUR', 'MXN', 'ARS', 'COP', 'DOP']);
  });

  it('every token contract or mint is a valid address on its network', () => {
    for (const asset of catalog.data.assets) {
      for (const entry of asset.networks) {
        if (entry.token_contract === null) continue;
        expect(isValidAddress(catalog.addressFormat(entry.network), entry.token_contract), `${asset.code}/${entry.network}`).toBe(true);
      }
    }
  });

  it('disabled pairs disappear from what an organization can use', () => {
    const settings = { ...DEFAULT_SETTINGS, disabled_pairs: [{ asset: 'SOL', network: 'solana' }] };
    expect(catalog.forOrganization(settings, 'test').map((a) => a.code)).not.toContain('SOL');
    expect(catalog.activeNetworks(settings, 'test', 'SOL')).toEqual([]);
  });

  it('live keys are offered only the networks with a chain watcher; sandbox keys every network', () => {
    const live = catalog.withLiveNetworks(['base', 'arbitrum']);
    const networksOf = (assets: ReturnType<Catalog['forOrganization']>) => [...new Set(assets.flatMap((a) => a.networks.map((n) => n.network)))].sort();
    expect(networksOf(live.forOrganization(DEFAULT_SETTINGS, 'live'))).toEqual(['arbitrum', 'base']);
    expect(live.forOrganization(DEFAULT_SETTINGS, 'live').map((a) => a.code)).toEqual(['USDC', 'ETH']);
    expect(live.activeNetworks(DEFAULT_SETTINGS, 'live', 'USDT')).toEqual([]);
    expect(networksOf(live.forOrganization(DEFAULT_SETTINGS, 'test'))).toEqual(networksOf(catalog.forOrganization(DEFAULT_SETTINGS, 'test')));
    expect(catalog.forOrganization(DEFAULT_SETTINGS, 'live')).toEqual([]);
  });

  it('a catalog file that names an unknown network is refused at load', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'catalog.json');
    const broken = structuredClone(catalog.data);
    broken.assets[0]!.networks[0]!.network = 'nowhere';
    fs.writeFileSync(file, JSON.stringify(broken));
    expect(() => Catalog.load(file)).toThrow(/unknown network nowhere/);
  });

  it('a catalog file with a min_amount finer than its decimals is refused at load', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'catalog.json');
    const broken = structuredClone(catalog.data);
    broken.assets[0]!.networks[0]!.min_amount = '0.0000001';
    fs.writeFileSync(file, JSON.stringify(broken));
    expect(() => Catalog.load(file)).toThrow(/more than 6 decimals/);
  });

  it('every EVM and Tron network names the chain id its node answers to eth_chainId; Solana and Bitcoin have none', () => {
    expect(catalog.data.networks.map((n) => [n.code, n.chain_id])).toEqual([
      ['ethereum', 1],
      ['polygon', 137],
      ['base', 8453],
      ['arbitrum', 42161],
      // java-tron: the last 4 bytes of the genesis block id, 0x2b6653dc on mainnet.
      ['tron', 0x2b6653dc],
      ['solana', null],
      ['bitcoin', null],
    ]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'catalog.json');
    const loadWith = (code: string, chainId: number | null) => {
      const edited = structuredClone(catalog.data);
      edited.networks.find((n) => n.code === code)!.chain_id = chainId;
      fs.writeFileSync(file, JSON.stringify(edited));
      return () => Catalog.load(file);
    };
    expect(loadWith('base', null)).toThrow('Catalog: base needs a chain_id (its evm node answers eth_chainId)');
    expect(loadWith('tron', null)).toThrow('Catalog: tron needs a chain_id (its tron node answers eth_chainId)');
    expect(loadWith('solana', 1)).toThrow('Catalog: solana needs a chain_id of null (solana has none)');
    // Nile, Tron's test network, is a catalog edit away: its chain id is above 2^31.
    expect(loadWith('tron', 0xcd8690dc)).not.toThrow();
  });
});
