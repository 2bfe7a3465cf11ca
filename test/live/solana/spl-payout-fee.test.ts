import { getTokenSize } from '@solana-program/token';
import { LiteSVM } from 'litesvm';
import { describe, expect, it } from 'vitest';
import { TOKEN_ACCOUNT_RENT_LAMPORTS, splPayoutMaxCostLamports } from '../../../src/providers/chains/solana/spl-payout-fee.js';

// What the hot wallet is actually charged is checked against litesvm in spl-payout-transaction.test.ts.
describe('the most an SPL token payout costs the hot wallet', () => {
  it("prices a token account's rent at the runtime's rent-exempt minimum for its 165 bytes", () => {
    expect(getTokenSize()).toBe(165);
    expect(new LiteSVM().minimumBalanceForRentExemption(BigInt(getTokenSize()))).toBe(TOKEN_ACCOUNT_RENT_LAMPORTS);
  });

  it('charges the priority fee on the compute unit limit, rounded up to a whole lamport', () => {
    expect(splPayoutMaxCostLamports({ microLamportsPerComputeUnit: 0n, computeUnitLimit: 40_000 }, false)).toBe(5_000n);
    expect(splPayoutMaxCostLamports({ microLamportsPerComputeUnit: 1n, computeUnitLimit: 40_000 }, false)).toBe(5_001n);
    expect(splPayoutMaxCostLamports({ microLamportsPerComputeUnit: 50_000n, computeUnitLimit: 40_000 }, false)).toBe(7_000n);
  });

  it("adds the rent only when the payout creates the destination's token account", () => {
    // The research brief's measurement in litesvm: 5,000 + 2,000 priority + 2,039,280 rent.
    expect(splPayoutMaxCostLamports({ microLamportsPerComputeUnit: 50_000n, computeUnitLimit: 40_000 }, true)).toBe(2_046_280n);
  });
});
