import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../../src/domain/catalog.js';
import { TablePriceSource } from '../../../src/providers/prices/table-price-source.js';
import { ManualClock } from '../../support/clock.js';

const catalog = Catalog.load();
const shipped = JSON.parse(fs.readFileSync(new URL('../../../src/providers/prices/prices.json', import.meta.url), 'utf8'));

function writeSheet(sheet: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prices-')), 'prices.json');
  fs.writeFileSync(file, typeof sheet === 'string' ? sheet : JSON.stringify(sheet));
  return file;
}

describe('the fixed rate sheet', () => {
  it('ships a price for every catalog asset and a rate for every catalog fiat, with the stablecoins pegged to USD', async () => {
    const snapshot = await TablePriceSource.load(undefined, catalog, new ManualClock()).current();
    for (const asset of catalog.data.assets) expect(snapshot.usd[asset.code], asset.code).toBeDefined();
    for (const fiat of catalog.data.fiat_currencies) expect(snapshot.fx[fiat.code], fiat.code).toBeDefined();
    expect(snapshot.fx.USD).toBe('1');
    expect(snapshot.pegs).toEqual({ USDC: 'USD', USDT: 'USD' });
  });

  it("ships a price for every catalog network's native asset, which pays its network fees (POL on Polygon)", async () => {
    const snapshot = await TablePriceSource.load(undefined, catalog, new ManualClock()).current();
    for (const network of catalog.data.networks) expect(snapshot.usd[network.native_asset], `${network.native_asset} (${network.code})`).toBeDefined();
  });

  it('is always current: each call is dated by the clock at that call', async () => {
    const clock = new ManualClock(new Date('2025-01-01T00:00:00Z'));
    const table = TablePriceSource.load(undefined, catalog, clock);
    expect((await table.current()).fetchedAt).toEqual(new Date('2025-01-01T00:00:00Z'));
    clock.advance(3_600_000);
    expect((await table.current()).fetchedAt).toEqual(new Date('2025-01-01T01:00:00Z'));
  });

  it('reads an operator file, pegs optional', async () => {
    const sheet = structuredClone(shipped);
    delete sheet.pegs;
    sheet.usd.ETH = '3150.25';
    const snapshot = await TablePriceSource.load(writeSheet(sheet), catalog, new ManualClock()).current();
    expect(snapshot.usd.ETH).toBe('3150.25');
    expect(snapshot.pegs).toEqual({});
  });

  it.each([
    ['an unpriced catalog asset', (s: typeof shipped) => delete s.usd.SOL, /\/usd has no price for SOL/],
    ["a catalog network's native asset without a price", (s: typeof shipped) => delete s.usd.POL, /\/usd has no price for POL \(the native asset of polygon\)/],
    ['a catalog fiat without a rate', (s: typeof shipped) => delete s.fx.DOP, /\/fx has no rate for DOP/],
    ['a number instead of a decimal string', (s: typeof shipped) => (s.usd.ETH = 3000), /\/usd\/ETH must be string/],
    ['a price with an exponent', (s: typeof shipped) => (s.usd.BTC = '9e4'), /\/usd\/BTC must match pattern/],
    ['a zero price', (s: typeof shipped) => (s.usd.TRX = '0.00'), /\/usd\/TRX must match pattern/],
    ['a negative rate', (s: typeof shipped) => (s.fx.EUR = '-0.92'), /\/fx\/EUR must match pattern/],
    ['a lowercase code', (s: typeof shipped) => (s.usd.eth = '3000'), /\/usd\/eth/],
    ['a USD rate other than 1', (s: typeof shipped) => (s.fx.USD = '1.01'), /\/fx\/USD must be 1 \(prices are in USD\), got 1.01/],
    ['a peg to something that is not a fiat code', (s: typeof shipped) => (s.pegs.USDC = 'dollar'), /\/pegs\/USDC must match pattern/],
    ['an unknown top-level field', (s: typeof shipped) => (s.eur = {}), /must not have additional properties/],
  ])('refuses %s, naming the file and the problem', (_case, breakIt, message) => {
    const sheet = structuredClone(shipped);
    breakIt(sheet);
    const file = writeSheet(sheet);
    expect(() => TablePriceSource.load(file, catalog, new ManualClock())).toThrow(`Invalid prices file ${file}: `);
    expect(() => TablePriceSource.load(file, catalog, new ManualClock())).toThrow(message);
  });

  it('refuses a file that is not JSON, naming it', () => {
    const file = writeSheet('{ "usd": ');
    expect(() => TablePriceSource.load(file, catalog, new ManualClock())).toThrow(new RegExp(`Invalid prices file ${file}: not JSON`));
  });
});
