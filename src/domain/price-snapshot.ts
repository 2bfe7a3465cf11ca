/**
 * Prices at one instant, as a price source delivered them. Decimal strings, never floats: they are multiplied
 * into amounts.
 */
export interface PriceSnapshot {
  /** When these prices were fetched; `valued_at` of balances. */
  fetchedAt: Date;
  /** USD price of one unit of each asset code: { USDC: '1', ETH: '3150.25', ... } */
  usd: Record<string, string>;
  /** Units of each fiat per 1 USD: { USD: '1', EUR: '0.92', PEN: '3.75', ... } */
  fx: Record<string, string>;
  /**
   * Assets that are redeemable 1:1 for a fiat: { USDC: 'USD', USDT: 'USD' }. Two assets pegged to the same
   * fiat convert 1:1 even when the prices have gone stale, because the peg is a property of the asset, not a
   * market quote. Empty when the source names none.
   */
  pegs: Record<string, string>;
}

/** Prices count only while younger than `maxAgeSeconds`; a snapshot dated after `now` (clock skew) is fresh. */
export function isFresh(snapshot: PriceSnapshot | null, now: Date, maxAgeSeconds: number): snapshot is PriceSnapshot {
  return snapshot !== null && now.getTime() - snapshot.fetchedAt.getTime() <= maxAgeSeconds * 1000;
}
