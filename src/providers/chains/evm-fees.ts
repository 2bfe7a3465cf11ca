/** EIP-1559 fees per gas, in wei. */
export interface Eip1559Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Nodes take a replacement for a pending transaction only when both of its fees are at least 10% higher (geth's
 * `txpool.pricebump`; other clients have the same rule or a laxer one): 12.5%, rounded up, clears it everywhere.
 */
const bumped = (fee: bigint) => fee + (fee + 7n) / 8n;

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The fees of a replacement for a transaction stuck at `previous`: what the market asks now, at least a bump
 * over the previous fees, and never more than `capWei` in total for `gas`. Null when the cap leaves no room for
 * a bump: the stuck transaction cannot be replaced, and waits for fees to fall.
 */
export function replacementFees(previous: Eip1559Fees, market: Eip1559Fees, gas: bigint, capWei: bigint): Eip1559Fees | null {
  const floor = { maxFeePerGas: bumped(previous.maxFeePerGas), maxPriorityFeePerGas: bumped(previous.maxPriorityFeePerGas) };
  const maxFeePerGas = min(max(market.maxFeePerGas, floor.maxFeePerGas), capWei / gas);
  if (maxFeePerGas < floor.maxFeePerGas) return null;
  // A tip is never above its max fee, so the bumped tip fits under a bumped max fee.
  return { maxFeePerGas, maxPriorityFeePerGas: min(max(market.maxPriorityFeePerGas, floor.maxPriorityFeePerGas), maxFeePerGas) };
}
