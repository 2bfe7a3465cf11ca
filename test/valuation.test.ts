import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import type { PriceSnapshot } from '../src/domain/price-snapshot.js';
import { convert, valueHoldings } from '../src/domain/valuation.js';

const NOW = new Date('2025-01-01T12:00:00Z');
const MAX_AGE = 300;
const FIATS = [
  { code: 'USD', decimals: 2 },
  { code: 'EUR', decimals: 2 },
  { code: 'PEN', decimals: 2 },
];

function snapshot(ageSeconds = 0, overrides: Partial<PriceSnapshot> = {}): PriceSnapshot {
  return {
    fetchedAt: new Date(NOW.getTime() - ageSeconds * 1000),
    usd: { USDC: '1', USDT: '1', ETH: '3150.25', BTC: '90000' },
    fx: { USD: '1', EUR: '0.92', PEN: '3.75' },
    pegs: { USDC: 'USD', USDT: 'USD' },
    ...overrides,
  };
}

const holding = (asset: string, amount: string) => ({ asset, amount: new Decimal(amount) });

describe('valueHoldings', () => {
  it('values each line as amount × USD price × fx rate, with exactly the fiat decimals, keyed by lowercase code', () => {
    const result = valueHoldings([holding('ETH', '0.5'), holding('USDC', '12.3')], snapshot(), FIATS, NOW, MAX_AGE);
    expect(result.lines).toEqual([
      { valuations: { usd: '1575.13', eur: '1449.12', pen: '5906.72' } },
      { valuations: { usd: '12.30', eur: '11.32', pen: '46.13' } },
    ]);
    expect(result.totals).toEqual({ usd: '1587.43', eur: '1460.44', pen: '5952.85' });
  });

  it('rounds half-up at the fiat decimals', () => {
    const result = valueHoldings(
      [holding('USDC', '0.005'), holding('USDC', '0.004999'), holding('USDC', '1.995'), holding('USDC', '1.994999')],
      snapshot(),
      [{ code: 'USD', decimals: 2 }],
      NOW,
      MAX_AGE,
    );
    expect(result.lines.map((line) => line.valuations.usd)).toEqual(['0.01', '0.00', '2.00', '1.99']);
  });

  it('a total is the sum of the line values shown, not the rounded sum of exact values', () => {
    const lines = [holding('USDC', '0.005'), holding('USDT', '0.005'), holding('USDC', '0.005')];
    const result = valueHoldings(lines, snapshot(), [{ code: 'USD', decimals: 2 }], NOW, MAX_AGE);
    expect(result.lines.map((line) => line.valuations.usd)).toEqual(['0.01', '0.01', '0.01']);
    expect(result.totals.usd).toBe('0.03');
  });

  it('keeps every digit of an 18-decimal amount until the final rounding', () => {
    const result = valueHoldings([holding('ETH', '0.000000000000000001'), holding('ETH', '1.999999999999999999')], snapshot(), FIATS, NOW, MAX_AGE);
    expect(result.lines.map((line) => line.valuations.usd)).toEqual(['0.00', '6300.50']);
  });

  it('fails closed: one unpriced asset takes every total away, while the other lines keep their values', () => {
    const result = valueHoldings([holding('ETH', '1'), holding('DOGE', '100')], snapshot(), FIATS, NOW, MAX_AGE);
    expect(result.lines[0]!.valuations).toEqual({ usd: '3150.25', eur: '2898.23', pen: '11813.44' });
    expect(result.lines[1]!.valuations).toEqual({});
    expect(result.totals).toEqual({});
  });

  it('a fiat without a rate is absent from every line and from the totals; the others stay', () => {
    const result = valueHoldings([holding('USDC', '10')], snapshot(0, { fx: { USD: '1', EUR: '0.92' } }), FIATS, NOW, MAX_AGE);
    expect(result.lines[0]!.valuations).toEqual({ usd: '10.00', eur: '9.20' });
    expect(result.totals).toEqual({ usd: '10.00', eur: '9.20' });
  });

  it('prices older than maxAgeSeconds value nothing; exactly maxAgeSeconds old still do', () => {
    const lines = [holding('USDC', '10')];
    const stale = valueHoldings(lines, snapshot(MAX_AGE + 1), FIATS, NOW, MAX_AGE);
    expect(stale).toEqual({ lines: [{ valuations: {} }], totals: {} });
    expect(valueHoldings(lines, snapshot(MAX_AGE), FIATS, NOW, MAX_AGE).totals.usd).toBe('10.00');
  });

  it('no prices at all value nothing', () => {
    expect(valueHoldings([holding('USDC', '10')], null, FIATS, NOW, MAX_AGE)).toEqual({ lines: [{ valuations: {} }], totals: {} });
  });

  it('holding nothing is zero in every fiat, with or without prices', () => {
    const fiats = [...FIATS, { code: 'JPY', decimals: 0 }];
    const zero = { usd: '0.00', eur: '0.00', pen: '0.00', jpy: '0' };
    expect(valueHoldings([], snapshot(), fiats, NOW, MAX_AGE)).toEqual({ lines: [], totals: zero });
    expect(valueHoldings([], null, fiats, NOW, MAX_AGE)).toEqual({ lines: [], totals: zero });
  });
});

describe('convert', () => {
  it('the same asset is itself, even without prices', () => {
    expect(convert(new Decimal('1.5'), 'ETH', 'ETH', null, NOW, MAX_AGE)?.toFixed()).toBe('1.5');
  });

  it('assets pegged to the same fiat convert 1:1, even on stale prices', () => {
    expect(convert(new Decimal('250.75'), 'USDC', 'USDT', snapshot(MAX_AGE + 3600), NOW, MAX_AGE)?.toFixed()).toBe('250.75');
  });

  it('pegs need a snapshot: with none at all nothing converts', () => {
    expect(convert(new Decimal('250.75'), 'USDC', 'USDT', null, NOW, MAX_AGE)).toBeNull();
  });

  it('assets pegged to different fiats go through prices', () => {
    const prices = snapshot(0, { usd: { USDC: '1', EURC: '1.08' }, pegs: { USDC: 'USD', EURC: 'EUR' } });
    expect(convert(new Decimal('108'), 'USDC', 'EURC', prices, NOW, MAX_AGE)?.toFixed()).toBe('100');
    expect(convert(new Decimal('108'), 'USDC', 'EURC', { ...prices, fetchedAt: new Date(0) }, NOW, MAX_AGE)).toBeNull();
  });

  it('ETH to USDC at the USD prices', () => {
    expect(convert(new Decimal('0.5'), 'ETH', 'USDC', snapshot(), NOW, MAX_AGE)?.toFixed()).toBe('1575.125');
  });

  it('is not rounded to asset decimals: callers round down', () => {
    const eth = convert(new Decimal('100'), 'USDC', 'ETH', snapshot(0, { usd: { USDC: '1', ETH: '3000' } }), NOW, MAX_AGE)!;
    expect(eth.decimalPlaces()).toBeGreaterThan(18);
    expect(eth.toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed()).toBe('0.033333333333333333');
  });

  it('a non-pegged pair on stale or missing prices is null', () => {
    expect(convert(new Decimal('1'), 'ETH', 'USDC', snapshot(MAX_AGE + 1), NOW, MAX_AGE)).toBeNull();
    expect(convert(new Decimal('1'), 'ETH', 'USDC', null, NOW, MAX_AGE)).toBeNull();
  });

  it('an unpriced asset on either side is null', () => {
    expect(convert(new Decimal('1'), 'DOGE', 'USDC', snapshot(), NOW, MAX_AGE)).toBeNull();
    expect(convert(new Decimal('1'), 'USDC', 'DOGE', snapshot(), NOW, MAX_AGE)).toBeNull();
  });
});
