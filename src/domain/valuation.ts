import { Decimal, ZERO } from './money.js';
import { isFresh, type PriceSnapshot } from './price-snapshot.js';

/** One balance line; callers may pass their balance rows (with `network`) as they are: prices are per asset. */
export interface Holding {
  asset: string;
  amount: Decimal;
}

export interface FiatCurrency {
  code: string;
  decimals: number;
}

export interface HoldingsValuation {
  /** One per holding, in the same order: lowercase fiat code → value, for each fiat the line could be valued in. */
  lines: Array<{ valuations: Record<string, string> }>;
  /** Lowercase fiat code → the sum of the line values shown; a fiat is absent when any line has no value in it. */
  totals: Record<string, string>;
}

/**
 * Values holdings in each fiat: amount × USD price × fx rate, rounded half-up to the fiat's decimals and shown
 * with exactly that many ("12.30"). Fail-closed: a line has no value in a fiat when its asset or that fiat is
 * unpriced, and a fiat's total is absent as soon as one line has no value in it, so a total never silently
 * leaves something out. A total is the sum of the rounded line values, so the lines shown add up to it.
 * Prices older than `maxAgeSeconds` (or none) value nothing. Holding nothing is worth zero in every fiat
 * whatever the prices: an empty list has every fiat's total at zero ("0.00").
 */
export function valueHoldings(
  lines: readonly Holding[],
  snapshot: PriceSnapshot | null,
  fiats: readonly FiatCurrency[],
  now: Date,
  maxAgeSeconds: number,
): HoldingsValuation {
  const prices = isFresh(snapshot, now, maxAgeSeconds) ? snapshot : null;
  const valued = lines.map((line) => ({ valuations: prices === null ? {} : lineValuations(line, prices, fiats) }));
  const totals: Record<string, string> = {};
  for (const fiat of fiats) {
    const key = fiat.code.toLowerCase();
    const shown = valued.map((line) => line.valuations[key]);
    if (!shown.every((value): value is string => value !== undefined)) continue;
    totals[key] = shown.reduce((sum, value) => sum.plus(value), ZERO).toFixed(fiat.decimals);
  }
  return { lines: valued, totals };
}

function lineValuations(line: Holding, prices: PriceSnapshot, fiats: readonly FiatCurrency[]): Record<string, string> {
  const valuations: Record<string, string> = {};
  const usdPrice = prices.usd[line.asset];
  if (usdPrice === undefined) return valuations;
  for (const fiat of fiats) {
    const rate = prices.fx[fiat.code];
    if (rate === undefined) continue;
    valuations[fiat.code.toLowerCase()] = line.amount.times(usdPrice).times(rate).toFixed(fiat.decimals, Decimal.ROUND_HALF_UP);
  }
  return valuations;
}

/**
 * The value of `amount` of asset `from` in units of asset `to`, or null when it cannot be known. The same asset
 * is itself; two assets pegged to the same fiat (`snapshot.pegs`) are 1:1 even when the prices are stale, since
 * a peg is not a quote; anything else goes through USD prices that must be fresh. With no snapshot at all there
 * are no pegs either. Not rounded to any asset's decimals: the result keeps Decimal's 100 significant digits
 * (truncated), and callers round it to the target asset's decimals with ROUND_DOWN, so truncating twice is the
 * same as truncating the exact value once.
 */
export function convert(
  amount: Decimal,
  from: string,
  to: string,
  snapshot: PriceSnapshot | null,
  now: Date,
  maxAgeSeconds: number,
): Decimal | null {
  if (from === to) return amount;
  const peg = snapshot?.pegs[from];
  if (peg !== undefined && peg === snapshot?.pegs[to]) return amount;
  if (!isFresh(snapshot, now, maxAgeSeconds)) return null;
  const fromUsd = snapshot.usd[from];
  const toUsd = snapshot.usd[to];
  if (fromUsd === undefined || toUsd === undefined) return null;
  return amount.times(fromUsd).div(toUsd);
}

/**
 * What remains of an intent, in `asset` (one of its currencies): rounded up to the asset's `decimals`, so paying
 * it completes the intent; null when no fresh price converts it. The simulator pays it, the payment page asks it.
 */
export function remainingIn(
  remaining: Decimal,
  primary: string,
  asset: string,
  decimals: number,
  snapshot: PriceSnapshot | null,
  now: Date,
  maxAgeSeconds: number,
): Decimal | null {
  const value = convert(remaining, primary, asset, snapshot, now, maxAgeSeconds);
  return value && value.toDecimalPlaces(decimals, Decimal.ROUND_UP);
}

/**
 * What one unit of `asset` is worth in USD: 1 for an asset pegged to USD (a peg is not a quote, so stale
 * prices do not matter), otherwise its fresh USD price; null when it cannot be known.
 */
export function usdPerUnit(asset: string, snapshot: PriceSnapshot | null, now: Date, maxAgeSeconds: number): Decimal | null {
  if (snapshot?.pegs[asset] === 'USD') return new Decimal(1);
  if (!isFresh(snapshot, now, maxAgeSeconds)) return null;
  const price = snapshot.usd[asset];
  return price === undefined ? null : new Decimal(price);
}
