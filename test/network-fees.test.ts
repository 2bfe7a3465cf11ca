import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../src/domain/catalog.js';
import { NetworkFees } from '../src/domain/network-fees.js';

const catalog = Catalog.load();
const shipped = JSON.parse(fs.readFileSync(new URL('../src/domain/network-fees.json', import.meta.url), 'utf8'));

function write(name: string, data: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fees-')), name);
  fs.writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return file;
}

describe('network fees', () => {
  const fees = NetworkFees.load(undefined, catalog);

  it('the shipped table has a fee and a positive time for every active catalog pair', () => {
    for (const asset of catalog.data.assets) {
      for (const entry of asset.networks.filter((n) => n.active)) {
        const fee = fees.fee(asset.code, entry.network);
        expect(fee, `${asset.code}/${entry.network}`).toBeDefined();
        expect(fee!.feeUsd.gt(0), `${asset.code}/${entry.network}`).toBe(true);
        expect(fee!.estimatedSeconds, `${asset.code}/${entry.network}`).toBeGreaterThan(0);
      }
    }
  });

  it('reads fees as exact decimals', () => {
    expect(fees.fee('USDC', 'ethereum')).toEqual({ feeUsd: expect.anything(), estimatedSeconds: 180 });
    expect(fees.fee('USDC', 'ethereum')!.feeUsd.toFixed()).toBe('2.4');
    expect(fees.fee('SOL', 'solana')!.feeUsd.toFixed()).toBe('0.002');
  });

  it('USDC costs more to move on Ethereum than on Solana or Base', () => {
    const ethereum = fees.fee('USDC', 'ethereum')!.feeUsd;
    expect(ethereum.gt(fees.fee('USDC', 'solana')!.feeUsd)).toBe(true);
    expect(ethereum.gt(fees.fee('USDC', 'base')!.feeUsd)).toBe(true);
  });

  it('has no fee for a pair outside the catalog', () => {
    expect(fees.fee('USDT', 'base')).toBeUndefined();
  });

  it.each([
    ['a missing active pair', (f: typeof shipped) => delete f.USDC.arbitrum, /no fee for USDC\/arbitrum/],
    ['a pair the catalog does not list', (f: typeof shipped) => (f.USDT.base = { fee_usd: '0.01', estimated_seconds: 60 }), /USDT\/base is not a catalog pair/],
    ['a fee with an exponent', (f: typeof shipped) => (f.ETH.base.fee_usd = '1e-2'), /\/ETH\/base\/fee_usd must match pattern/],
    ['a negative fee', (f: typeof shipped) => (f.BTC.bitcoin.fee_usd = '-1.50'), /\/BTC\/bitcoin\/fee_usd must match pattern/],
    ['a fee as a JSON number', (f: typeof shipped) => (f.TRX.tron.fee_usd = 0.3), /\/TRX\/tron\/fee_usd must be string/],
    ['zero seconds', (f: typeof shipped) => (f.SOL.solana.estimated_seconds = 0), /\/SOL\/solana\/estimated_seconds must be >= 1/],
    ['fractional seconds', (f: typeof shipped) => (f.SOL.solana.estimated_seconds = 20.5), /\/SOL\/solana\/estimated_seconds must be integer/],
    ['an unknown field', (f: typeof shipped) => (f.SOL.solana.fee_sol = '0.00001'), /\/SOL\/solana must not have additional properties/],
  ])('refuses %s, naming the file and the pair', (_case, breakIt, message) => {
    const broken = structuredClone(shipped);
    breakIt(broken);
    const file = write('fees.json', broken);
    expect(() => NetworkFees.load(file, catalog)).toThrow(`Invalid network fees ${file}: `);
    expect(() => NetworkFees.load(file, catalog)).toThrow(message);
  });

  it('refuses a file that is not JSON, naming it', () => {
    const file = write('fees.json', '{ "USDC": ');
    expect(() => NetworkFees.load(file, catalog)).toThrow(`Invalid network fees ${file}: not JSON`);
  });

  it('an inactive catalog pair needs no fee', () => {
    const data = structuredClone(catalog.data);
    data.assets.find((a) => a.code === 'USDC')!.networks.find((n) => n.network === 'arbitrum')!.active = false;
    const withInactivePair = Catalog.load(write('catalog.json', data));
    const table = structuredClone(shipped);
    delete table.USDC.arbitrum;
    expect(NetworkFees.load(write('fees.json', table), withInactivePair).fee('USDC', 'arbitrum')).toBeUndefined();
  });
});
