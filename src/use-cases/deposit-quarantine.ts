import type { ChainDepositRow } from '../store/chain-watch.js';
import type { Sql } from '../store/database.js';
import { recordCreditFailure } from '../store/deposit-quarantine.js';

/**
 * The retry schedule of a deposit whose credit failed: 30 s after the first failure, twice as long after each
 * further one, at most an hour. A cause that is fixed is noticed within the hour; one that is not costs one
 * failed transaction an hour.
 */
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 3600;
const REASON_MAX_LENGTH = 500;

/** Cursor list name shared by the operator API and the CLI. */
export const QUARANTINE_LIST = 'quarantined-deposits';

/**
 * What is kept of a failure, for the operator API, the logs and nobody else: its message, with every URL taken
 * out (an RPC URL often carries the provider's API key, and viem's messages name it), cut short.
 */
function failureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, REASON_MAX_LENGTH);
}

export interface CreditFailure {
  reason: string;
  attempts: number;
  nextAttemptAt: Date;
}

/** Records that `deposit`'s credit threw `error` at `now`, and when to try again. */
export async function quarantineDeposit(sql: Sql, deposit: ChainDepositRow, error: unknown, now: Date): Promise<CreditFailure> {
  const attempts = deposit.credit_attempts + 1;
  const delaySeconds = Math.min(FIRST_RETRY_SECONDS * 2 ** (attempts - 1), MAX_RETRY_SECONDS);
  const failure = { reason: failureReason(error), attempts, nextAttemptAt: new Date(now.getTime() + delaySeconds * 1000) };
  await recordCreditFailure(sql, deposit, { reason: failure.reason, at: now, nextAttemptAt: failure.nextAttemptAt });
  return failure;
}

/** The deposits in quarantine now, newest first, for the operator API (which reaches the store through use cases). */
export { quarantinedDeposits as listQuarantinedDeposits, type QuarantinedDepositRow } from '../store/deposit-quarantine.js';
