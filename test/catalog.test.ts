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

  it('every EVM network names its chain id, and no other network has one', () => {
    expect(catalog.data.networks.filter((n) => n.address_format === 'evm').map((n) => [n.code, n.chain_id])).toEqual([
      ['ethereum', 1],
      ['polygon', 137],
      ['base', 8453],
      ['arbitrum', 42161],
    ]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-')), 'catalog.json');
    const noChain = structuredClone(catalog.data);
    noChain.networks.find((n) => n.code === 'base')!.chain_id = null;
    fs.writeFileSync(file, JSON.stringify(noChain));
    expect(() => Catalog.load(file)).toThrow('Catalog: base needs a chain_id (it is an EVM network)');
    const tronChain = structuredClone(catalog.data);
    tronChain.networks.find((n) => n.code === 'tron')!.chain_id = 728126428;
    fs.writeFileSync(file, JSON.stringify(tronChain));
    expect(() => Catalog.load(file)).toThrow('Catalog: tron needs a chain_id of null (it is not an EVM network)');
  });
});
