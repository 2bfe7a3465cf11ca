import { Argument, type Command } from 'commander';
import { adminPath } from './operator-api.js';
import type { RunDownload } from './verbs.js';

interface StatementOptions {
  from: string;
  to: string;
  externalRef?: string;
  format: string;
  fiat?: string;
  out?: string;
}

export function reportCommands(program: Command, download: RunDownload): void {
  const reports = program.command('reports').description('Statements partners can book');
  reports
    .command('transactions')
    .description('Write an organization’s statement of ledger movements for a date range (docs/reports.md), streamed to --out or stdout')
    .argument('<organization_id>')
    .addArgument(new Argument('<mode>', 'test (sandbox) or live').choices(['test', 'live']))
    .requiredOption('--from <date>', 'inclusive start: an ISO 8601 date or date-time (UTC when no zone)')
    .requiredOption('--to <date>', 'exclusive end: a date-time, or a date, which includes that whole day')
    .option('--external-ref <ref>', 'one end user; omitted: the organization and every profile')
    .option('--format <format>', 'csv or json', 'csv')
    .option('--fiat <codes>', 'comma-separated fiat codes to value movements in (default: every fiat)')
    .option('--out <file>', 'write to this file instead of stdout')
    .action((organizationId: string, mode: string, options: StatementOptions) =>
      download(
        {
          method: 'GET',
          path: adminPath`/organizations/${organizationId}/reports/transactions`,
          query: { mode, from: options.from, to: options.to, external_ref: options.externalRef, format: options.format, fiat: options.fiat },
        },
        options.out,
      ),
    );
}
