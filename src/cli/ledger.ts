import type { Command } from 'commander';
import type { Static } from 'typebox';
import type { LedgerReport } from '../routes/admin/ledger.js';
import type { RunVerb } from './verbs.js';

/** The operator API's answer, printed as it comes. */
type Report = Static<typeof LedgerReport>;

/** A ledger that does not add up: the report goes to stderr and the command exits 1. */
export class LedgerOutOfBalance extends Error {
  constructor(readonly report: Report) {
    super(
      `Ledger verification FAILED: ${report.account_mismatches.length} account(s) whose balance differs from their postings, ` +
        `${report.unbalanced_transfers.length} transfer(s) that do not balance, ` +
        `${report.tenant_total_mismatches.length} tenant total(s) that differ from their accounts (checked ${report.accounts} accounts, ` +
        `${report.transfers} transfers, ${report.postings} postings).\n${JSON.stringify(report, null, 2)}`,
    );
  }
}

export function ledgerCommands(program: Command, run: RunVerb): void {
  const ledger = program.command('ledger').description('Check the double-entry ledger');
  ledger
    .command('verify')
    .description('Check that every balance equals the sum of its postings, every transfer sums to zero per asset and every tenant total its accounts; exits 1 on any mismatch')
    .action(() =>
      run({ method: 'GET', path: '/ledger/verification' }, (answer) => {
        const report = answer as Report;
        if (!report.ok) throw new LedgerOutOfBalance(report);
      }),
    );
}
