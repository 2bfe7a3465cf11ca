import { randomInt } from 'node:crypto';
import { Decimal, ZERO } from './money.js';

export type IntentStatus = 'pending' | 'completed' | 'expired' | 'failed';

/** A deposit counts as completing when it leaves at most this much unpaid (4.995 against 5.00 completes). */
export const COMPLETION_TOLERANCE = new Decimal('0.01');
/**
 * The tolerance never exceeds this share of the intent's amount: without it an intent for 0.005 BTC would
 * "complete" on any dust credit. From an amount of 1 upward the contract's 0.01 applies unchanged.
 */
export const MAX_TOLERANCE_SHARE = new Decimal('0.01');
/** How long after an intent's expires_at its ref_code stays reserved for it (hosted-page lookups). */
export const REF_CODE_RETENTION_DAYS = 30;
/** Draws of a fresh ref_code before creation gives up; each draw is one statement. */
export const REF_CODE_DRAWS = 10;
/** USDT on a non-Solana network needs an amount above this (network fees make smaller ones uneconomic). */
export const USDT_NON_SOLANA_FLOOR = new Decimal('5.5');
export const MAX_CURRENCIES = 10;
export const MAX_DESCRIPTION = 500;
export const MAX_METADATA_KEYS = 50;
/** Metadata keys are short names, as with the best-known payments APIs (40 characters). */
export const MAX_METADATA_KEY = 40;
export const MAX_METADATA_VALUE = 500;

/** No 0/O, 1/I/L: a ref_code is read aloud and typed by people. */
const REF_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const REF_CODE_LENGTH = 5;

export function generateRefCode(): string {
  let code = '';
  for (let i = 0; i < REF_CODE_LENGTH; i++) code += REF_CODE_ALPHABET[randomInt(REF_CODE_ALPHABET.length)];
  return code;
}

/** Whether `value` could be a ref code this service generated. */
export const isRefCode = (value: string) => value.length === REF_CODE_LENGTH && [...value].every((c) => REF_CODE_ALPHABET.includes(c));

/** A pending intent past its expiry is expired on every read, before the sweeper has persisted it. */
export function effectiveStatus(intent: { status: IntentStatus; expires_at: Date }, now: Date): IntentStatus {
  return intent.status === 'pending' && intent.expires_at.getTime() <= now.getTime() ? 'expired' : intent.status;
}

export function amountRemaining(amount: Decimal, received: Decimal): Decimal {
  const remaining = amount.minus(received);
  return remaining.isNegative() ? ZERO : remaining;
}

export interface CreditOutcome {
  amountReceived: Decimal;
  amountRemaining: Decimal;
  status: IntentStatus;
  /** True only for the credit that moves the intent from pending to completed. */
  completes: boolean;
  partialPayment: boolean;
}

/**
 * The intent state machine for one credit. Only a pending intent changes state; a credit to a completed
 * or expired intent is still counted in `amount_received` (money is never dropped) but moves nothing.
 */
export function completionTolerance(amount: Decimal): Decimal {
  return Decimal.min(COMPLETION_TOLERANCE, amount.times(MAX_TOLERANCE_SHARE));
}

/** Until when a ref_code stays reserved for the intent that drew it. */
export function refCodeHeldUntil(expiresAt: Date): Date {
  return new Date(expiresAt.getTime() + REF_CODE_RETENTION_DAYS * 86_400_000);
}

export function applyCredit(intent: { amount: Decimal; amountReceived: Decimal; status: IntentStatus }, credit: Decimal): CreditOutcome {
  const amountReceived = intent.amountReceived.plus(credit);
  const completes = intent.status === 'pending' && amountReceived.gte(intent.amount.minus(completionTolerance(intent.amount)));
  const status = completes ? 'completed' : intent.status;
  return {
    amountReceived,
    amountRemaining: amountRemaining(intent.amount, amountReceived),
    status,
    completes,
    partialPayment: status === 'pending' && amountReceived.gt(0),
  };
}
