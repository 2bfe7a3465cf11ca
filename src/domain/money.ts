import { Decimal as BaseDecimal } from 'decimal.js';
import { DomainError } from './errors.js';

/**
 * Exact decimal arithmetic for amounts. Precision covers NUMERIC(78) base units with 18 decimals, so no
 * amount the ledger can hold is ever rounded.
 */
export const Decimal = BaseDecimal.clone({ precision: 100, rounding: BaseDecimal.ROUND_DOWN, toExpNeg: -100, toExpPos: 100 });
export type Decimal = InstanceType<typeof Decimal>;

const PLAIN_DECIMAL = /^(0|[1-9][0-9]{0,59})(\.[0-9]{1,36})?$/;

/**
 * A positive amount from the wire: a decimal string (preferred) or a JSON number. Numbers are read through
 * their shortest decimal form (0.1 stays 0.1), never through binary arithmetic.
 */
export function parseAmount(input: string | number, param: string): Decimal {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new DomainError('invalid_request', `${param} must be a finite number.`, param);
    text = new Decimal(String(input)).toFixed();
  } else {
    text = input.trim();
  }
  if (!PLAIN_DECIMAL.test(text)) {
    throw new DomainError('invalid_request', `${param} must be a positive decimal such as "12.50".`, param);
  }
  const amount = new Decimal(text);
  if (amount.lte(0)) throw new DomainError('invalid_request', `${param} must be greater than 0.`, param);
  return amount;
}

/** Refuses amounts finer than the asset can represent on chain. */
export function checkDecimals(amount: Decimal, decimals: number, asset: string, param: string): void {
  if (amount.decimalPlaces() > decimals) {
    throw new DomainError('invalid_request', `${param} has more than ${decimals} decimals, the most ${asset} allows.`, param);
  }
}

export const ZERO = new Decimal(0);

/** Formatting at the edge: the contract shows intent amounts as JSON numbers. */
export const toNumber = (amount: Decimal | string) => new Decimal(amount).toNumber();
/** Decimal strings without exponent or trailing zeros, for fields the contract types as strings. */
export const toDecimalString = (amount: Decimal | string) => new Decimal(amount).toFixed();
