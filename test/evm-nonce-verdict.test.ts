import { describe, expect, it } from 'vitest';
import { nonceVerdict, type NonceObservation } from '../src/outbound/evm/nonce-verdict.js';

/** Nonce 7 of the wallet, the head at block 100, three confirmations required (blocks 98 to 100 are shallow). */
const seen = (over: Partial<NonceObservation>): NonceObservation => ({
  nonce: 7n,
  head: 100n,
  confirmationsRequired: 3n,
  mined: null,
  usedAtDepth: 7n,
  usedAtHead: 7n,
  usedBy: null,
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
    const stranger = { txHash: '0xdef', ours: false };
    expect(nonceVerdict(seen({ usedAtDepth: 8n, usedAtHead: 8n, usedBy: stranger }))).toEqual({ kind: 'not_paid', proof: 'nonce_used_elsewhere', txHash: '0xdef' });
    expect(nonceVerdict(seen({ usedAtDepth: 7n, usedAtHead: 8n }))).toEqual({ kind: 'used_shallow' });
  });

  it('a nonce used at depth without a receipt of ours is no proof until its block shows the transaction that used it, and that it is none of ours', () => {
    // No receipt found may be a lookup answered by a backend behind the chain: the count alone proves nothing.
    expect(nonceVerdict(seen({ usedAtDepth: 8n, usedAtHead: 8n, usedBy: null }))).toEqual({ kind: 'unproven' });
    // The block shows one of ours at the nonce: mined, its receipt not served yet.
    expect(nonceVerdict(seen({ usedAtDepth: 8n, usedAtHead: 8n, usedBy: { txHash: '0xabc', ours: true } }))).toEqual({ kind: 'unproven' });
  });

  it('a nonce nobody used is open: the payout may still be mined', () => {
    expect(nonceVerdict(seen({}))).toEqual({ kind: 'open' });
  });
});
