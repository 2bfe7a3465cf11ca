import { describe, expect, it } from 'vitest';
import { nonceVerdict, type NonceObservation } from '../src/providers/chains/evm-nonce-verdict.js';

/** Nonce 7 of the wallet, the head at block 100, three confirmations required (blocks 98 to 100 are shallow). */
const seen = (over: Partial<NonceObservation>): NonceObservation => ({
  nonce: 7n,
  head: 100n,
  confirmationsRequired: 3n,
  mined: null,
  usedAtDepth: 7n,
  usedAtHead: 7n,
  ...over,
});
const mined = (purpose: 'payout' | 'cancel' | 'filler', blockNumber: bigint, succeeded = true) => ({ txHash: '0xabc', purpose, blockNumber, succeeded });

describe('what a nonce of the hot wallet came to', () => {
  it('the payout mined and succeeded at its confirmations (the including block counts) is paid; one block fewer is not yet', () => {
    expect(nonceVerdict(seen({ mined: mined('payout', 98n) }))).toEqual({ kind: 'paid', txHash: '0xabc' });
    expect(nonceVerdict(seen({ mined: mined('payout', 99n) }))).toEqual({ kind: 'mined_shallow', txHash: '0xabc' });
  });

  it('a revert is proof of nothing paid only at the confirmations (a reorganization could mine another transaction of the nonce)', () => {
    expect(nonceVerdict(seen({ mined: mined('payout', 98n, false) }))).toEqual({ kind: 'not_paid', proof: 'reverted', txHash: '0xabc' });
    expect(nonceVerdict(seen({ mined: mined('payout', 100n, false) }))).toEqual({ kind: 'mined_shallow', txHash: '0xabc' });
  });

  it('a cancellation or filler mined at the nonce proves the payout was not paid, at the confirmations', () => {
    expect(nonceVerdict(seen({ mined: mined('cancel', 90n) }))).toEqual({ kind: 'not_paid', proof: 'cancelled', txHash: '0xabc' });
    expect(nonceVerdict(seen({ mined: mined('filler', 90n) }))).toEqual({ kind: 'not_paid', proof: 'cancelled', txHash: '0xabc' });
    expect(nonceVerdict(seen({ mined: mined('cancel', 99n) }))).toEqual({ kind: 'mined_shallow', txHash: '0xabc' });
  });

  it('a nonce used by none of its transactions is proof only as deep as the confirmations; used at the head only, it waits', () => {
    expect(nonceVerdict(seen({ usedAtDepth: 8n, usedAtHead: 8n }))).toEqual({ kind: 'not_paid', proof: 'nonce_used_elsewhere', txHash: null });
    expect(nonceVerdict(seen({ usedAtDepth: 7n, usedAtHead: 8n }))).toEqual({ kind: 'used_shallow' });
  });

  it('a nonce nobody used is open: the payout may still be mined', () => {
    expect(nonceVerdict(seen({}))).toEqual({ kind: 'open' });
  });
});
