import { Decimal } from './money.js';
import { isFresh, type PriceSnapshot } from './price-snapshot.js';

/**
 * What one unit of a ledger row's asset was worth in each fiat when the row was written: stored with the row
 * (`transactions.unit_prices`) so a statement values the movement at that price, never at today's.
 */
export interface UnitPrices {
  /** The price snapshot's time (ISO 8601). */
  at: string;
  /** Fiat code → price of one unit, an exact decimal string (USD price × units of the fiat per USD, unrounded). */
  fiat: Record<string, string>;
}

/**
 * The prices to store with a new row of `asset`: null when there is no fresh snapshot or it has no USD price for
 * the asset, the same fail-closed rule as balances (docs/architecture.md, Prices). Every fiat the snapshot has a
 * rate for is kept (a fiat enabled later still finds its price); one it has none for is left out, so the
 * statement shows no value in it for this row.
 */
export function unitPricesOf(asset: string, snapshot: PriceSnapshot | null, now: Date, maxAgeSeconds: number): UnitPrices | null {
  if (!isFresh(snapshot, now, maxAgeSeconds)) return null;
  const usd = snapshot.usd[asset];
  if (usd === undefined) return null;
  const fiat: Record<string, string> = {};
  for (const [code, rate] of Object.entries(snapshot.fx)) fiat[code] = new Decimal(usd).times(rate).toFixed();
  return { at: snapshot.fetchedAt.toISOString(), fiat };
}

/** A movement's value in one fiat: amount × the stored unit price, rounded half-up to the fiat's decimals; null when unpriced. */
export function valueAt(amount: Decimal, prices: UnitPrices | null, fiat: { code: string; decimals: number }): string | null {
  const price = prices?.fiat[fiat.code];
  return price === undefined ? null : amount.times(price).toFixed(fiat.decimals, Decimal.ROUND_HALF_UP);
}
