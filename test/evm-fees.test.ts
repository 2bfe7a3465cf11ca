import { describe, expect, it } from 'vitest';
import { replacementFees } from '../src/providers/chains/evm-fees.js';

const gwei = (n: number) => BigInt(n) * 1_000_000_000n;
const GAS = 50_000n;

describe('the fees of a replacement for a stuck payout transaction', () => {
  const stuck = { maxFeePerGas: gwei(10), maxPriorityFeePerGas: gwei(1) };

  it('follows the market when it asks more than the bump', () => {
    expect(replacementFees(stuck, { maxFeePerGas: gwei(30), maxPriorityFeePerGas: gwei(2) }, GAS, GAS * gwei(100))).toEqual({
      maxFeePerGas: gwei(30),
      maxPriorityFeePerGas: gwei(2),
    });
  });

  it('raises both fees by at least 12.5%, rounded up, when the market asks less (nodes refuse a smaller bump)', () => {
    const fees = replacementFees({ maxFeePerGas: 1_000_000_001n, maxPriorityFeePerGas: 9n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, GAS, GAS * gwei(100));
    expect(fees).toEqual({ maxFeePerGas: 1_125_000_002n, maxPriorityFeePerGas: 11n });
  });

  it('never lets gas × max fee exceed the cap: the fee stops at the cap', () => {
    const cap = GAS * gwei(20) + 123n;
    const fees = replacementFees(stuck, { maxFeePerGas: gwei(50), maxPriorityFeePerGas: gwei(30) }, GAS, cap)!;
    expect(fees.maxFeePerGas).toBe(cap / GAS);
    expect(fees.maxFeePerGas * GAS <= cap).toBe(true);
    expect(fees.maxPriorityFeePerGas).toBe(fees.maxFeePerGas);
  });

  it('answers null when the cap leaves no room for the bump: the stuck transaction cannot be replaced', () => {
    expect(replacementFees(stuck, { maxFeePerGas: gwei(50), maxPriorityFeePerGas: gwei(2) }, GAS, GAS * gwei(11))).toBeNull();
  });
});
