import { Decimal as BaseDecimal } from 'decimal.js';
import { DomainError } from './errors.js';

/**
 * Exact decimal arithmetic for amounts. Precision covers NUMERIC(78) base units with 18 decimals, so no
 * amount the ledger can hold is ever rounded.
 */
export const Decimal = BaseDecimal.clone({ precision: 100, rounding: BaseDecimal.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 });
export type Decimal = InstanceType<typeof Decimal>;

/** Digits only, one optional fraction: no sign, exponent, spaces or leading zeros. */
const PLAIN_DECIMAL = /^(0|[1-9][0-9]{0,59})(\.[0-9]{1,36})?$/;

/**
 * The most significant digits a JSON number (an IEEE-754 double) carries exactly. Amounts that the contract
 * shows as JSON numbers (intent amounts) must fit, or the envelope would show a different amount.
 */
export const MAX_EXACT_SIGNIFICANT_DIGITS = 15;

/** Significant digits of a plain decimal or a JSON number literal: `0.000120` has 2, `1e18` has 1. */
export function significantDigits(literal: string): number {
  const mantissa = literal.replace(/^-/, '').replace(/[eE].*$/, '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
}

/**
 * A positive amount from the wire: a plain decimal string (preferred) or a JSON number. Numbers are read
 * through their shortest decimal form (0.1 stays 0.1), never through binary arithmetic; a number beyond
 * what a double holds exactly has already been rounded by the JSON parser, so it is refused (the body
 * parser refuses such literals first; this is the second line).
 */
export function parseAmount(input: string | number, param: string): Decimal {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new DomainError('invalid_request', `${param} must be a finite number.`, param);
    text = new Decimal(String(input)).toFixed();
    if (significantDigits(text) > MAX_EXACT_SIGNIFICANT_DIGITS) throw notExact(param);
  } else {
    text = input;
  }
  if (!PLAIN_DECIMAL.test(text)) {
    throw new DomainError('invalid_request', `${param} must be a positive decimal such as "12.50" (digits and one dot, nothing else).`, param);
  }
  const amount = new Decimal(text);
  if (amount.lte(0)) throw new DomainError('invalid_request', `${param} must be greater than 0.`, param);
  return amount;
}

const notExact = (param: string) =>
  new DomainError(
    'invalid_request',
    `${param} has more than ${MAX_EXACT_SIGNIFICANT_DIGITS} significant digits, more than a JSON number represents exactly.`,
    param,
  );

/** Refuses amounts whose JSON-number form would not be exact (the contract shows intent amounts as numbers). */
export function checkExactAsNumber(amount: Decimal, param: string): void {
  if (significantDigits(amount.toFixed()) > MAX_EXACT_SIGNIFICANT_DIGITS) throw notExact(param);
}

/** Refuses amounts finer than the asset can represent on chain. */
export function checkDecimals(amount: Decimal, decimals: number, asset: string, param: string): void {
  if (amount.decimalPlaces() > decimals) {
    throw new DomainError('invalid_request', `${param} has more than ${decimals} decimals, the most ${asset} allows.`, param);
  }
}

export const ZERO = new Decimal(0);

/**
 * Formatting at the edge: the contract shows intent amounts as JSON numbers. A decimal string needs no Decimal on the
 * way: `Number` rounds its exact value to the nearest double, as `Decimal#toNumber` does (it is `+` of the same value
 * printed without exponent), so both give the same number for every string a NUMERIC column prints.
 */
export const toNumber = (amount: Decimal | string) => (typeof amount === 'string' ? Number(amount) : amount.toNumber());
/** Decimal strings without exponent or trailing zeros, for fields the contract types as strings. */
/** An amount counted in the asset's base units on chain (wei, sun, lamports), in the asset's unit. */
export const fromBaseUnits = (units: bigint, decimals: number): Decimal => new Decimal(units.toString()).div(new Decimal(10).pow(decimals));

/** An amount in the asset's unit, counted in its base units on chain; an amount finer than them is cut, never rounded up. */
export const toBaseUnits = (amount: Decimal | string, decimals: number): bigint => BigInt(new Decimal(amount).times(new Decimal(10).pow(decimals)).toFixed(0, Decimal.ROUND_DOWN));

export const toDecimalString = (amount: Decimal | string) => new Decimal(amount).toFixed();
