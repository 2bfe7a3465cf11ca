import { describe, expect, it } from 'vitest';
import { deadlinePassed, expiryVerdict, type Deadline, type ExpiryObservation } from '../src/outbound/expiring/expiry-verdict.js';

const solana: Deadline = { kind: 'last_valid_height', height: 1_000n };
const tron: Deadline = { kind: 'expiration_ms', at: 1_795_000_060_000n };
const seen = (over: Partial<ExpiryObservation>): ExpiryObservation => ({ deadline: solana, finalPoint: 990n, found: null, absenceProven: true, ...over });

describe('the deadline of a transaction without a nonce', () => {
  it('Solana: a blockhash is valid through lastValidBlockHeight, so only a finalized height above it has passed the deadline', () => {
    expect(deadlinePassed(solana, 1_000n)).toBe(false);
    expect(deadlinePassed(solana, 1_001n)).toBe(true);
  });

  it("Tron: a transaction is includable only while expiration is after the parent block's time, so a solidified time at expiration has passed it", () => {
    expect(deadlinePassed(tron, 1_795_000_059_999n)).toBe(false);
    expect(deadlinePassed(tron, 1_795_000_060_000n)).toBe(true);
  });
});

describe('what a transaction with a deadline came to', () => {
  it('landed, final and executed is paid; landed but not final waits', () => {
    expect(expiryVerdict(seen({ found: { final: true, succeeded: true } }))).toEqual({ kind: 'paid' });
    expect(expiryVerdict(seen({ found: { final: false, succeeded: true } }))).toEqual({ kind: 'landed_shallow' });
  });

  it('a failure proves nothing was paid only when final (a rollback could let the same bytes land again)', () => {
    expect(expiryVerdict(seen({ found: { final: true, succeeded: false } }))).toEqual({ kind: 'not_paid', proof: 'reverted' });
    expect(expiryVerdict(seen({ found: { final: false, succeeded: false } }))).toEqual({ kind: 'landed_shallow' });
  });

  it('landed nowhere is proof only past the deadline; before it the transaction may still land', () => {
    expect(expiryVerdict(seen({ finalPoint: 1_001n }))).toEqual({ kind: 'not_paid', proof: 'expired' });
    expect(expiryVerdict(seen({ finalPoint: 1_000n }))).toEqual({ kind: 'open' });
    expect(expiryVerdict(seen({ deadline: tron, finalPoint: 1_795_000_060_000n }))).toEqual({ kind: 'not_paid', proof: 'expired' });
  });

  it('"landed nowhere" past the deadline from an answer that does not prove its node reached the final point is no proof: unproven', () => {
    expect(expiryVerdict(seen({ finalPoint: 1_001n, absenceProven: false }))).toEqual({ kind: 'unproven' });
    expect(expiryVerdict(seen({ finalPoint: 1_000n, absenceProven: false }))).toEqual({ kind: 'open' });
  });

  it('a transaction found is never called expired, whatever the final point (the lookup outranks the clock)', () => {
    expect(expiryVerdict(seen({ finalPoint: 5_000n, found: { final: true, succeeded: true } }))).toEqual({ kind: 'paid' });
    expect(expiryVerdict(seen({ finalPoint: 5_000n, found: { final: false, succeeded: true } }))).toEqual({ kind: 'landed_shallow' });
  });
});
