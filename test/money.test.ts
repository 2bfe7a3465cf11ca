import { describe, expect, it } from 'vitest';
import { Decimal, toNumber } from '../src/domain/money.js';

describe('amounts shown as JSON numbers', () => {
  // The texts a NUMERIC column prints: trailing zeros of its scale, more digits than a double holds, integers past 2^53.
  const texts = ['100000000.000000', '0.010000000000000000', '0.1', '123456789012345.678', '0.000000000000000001', '9007199254740993', '0', '1.0000000000000001'];

  it('are the double nearest the exact decimal, the same from its text as from a Decimal of it', () => {
    for (const text of texts) expect(toNumber(text)).toBe(new Decimal(text).toNumber());
    for (const text of texts) expect(toNumber(new Decimal(text))).toBe(new Decimal(text).toNumber());
    expect(texts.map(toNumber)).toEqual([100000000, 0.01, 0.1, 123456789012345.67, 1e-18, 9007199254740992, 0, 1]);
  });
});
