import type { Command } from 'commander';
import type { LedgerReport } from '../use-cases/ledger.js';
import type { RunVerb } from './run.js';

/** A ledger that does not add up: the report goes to stderr and the command exits 1. */
export class LedgerOutOfBalance extends Error {
  constructor(readonly report: LedgerReport) {
    super(
      `Ledger verification FAILED: ${report.accountMismatches.length} account(s) whose balance differs from their postings, ` +
        `${report.unbalancedTransfers.length} transfer(s) that do not balance (checked ${report.accounts} accounts, ` +
        `${report.transfers} transfers, ${report.postings} postings).\n${JSON.stringify(report, null, 2)}`,
    );
  }
}

export function ledgerCommands(program: Command, run: RunVerb): void {
  const ledger = program.command('ledger').description('Check the double-entry ledger');
  ledger
    .command('verify')
    .description('Check that every balance equals the sum of its postings and every transfer sums to zero per asset; exits 1 on any mismatch')
    .action(() =>
      run({ method: 'GET', path: '/ledger/verification' }, (answer) => {
        const report = answer as LedgerReport;
        if (!report.ok) throw new LedgerOutOfBalance(report);
      }),
    );
}
