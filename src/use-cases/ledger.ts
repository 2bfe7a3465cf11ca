import type { Sql } from '../store/database.js';
import { checkLedger, type LedgerCheck } from '../store/ledger.js';

export type LedgerReport = LedgerCheck & { ok: boolean };

/**
 * The ledger's invariants over every tenant: each account that keeps a running balance equals the sum of its
 * postings, each transfer has two postings or more that sum to zero per asset, and each tenant's running
 * totals equal the sum of its accounts and the count of its profiles.
 */
export async function verifyLedger(sql: Sql): Promise<LedgerReport> {
  const check = await checkLedger(sql);
  const ok = check.accountMismatches.length === 0 && check.unbalancedTransfers.length === 0 && check.tenantTotalMismatches.length === 0;
  return { ...check, ok };
}
