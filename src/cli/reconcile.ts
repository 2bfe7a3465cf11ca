import type { Command } from 'commander';
import type { ReconciliationAnswer } from '../routes/admin/reconciliation.js';
import { textTable } from './text-table.js';
import type { RunVerb } from './verbs.js';

type Line = ReconciliationAnswer['data'][number];

/** One row per network and asset, then the hot wallet and each drifting address under it; errors of unread chains. */
export function reconciliationText(answer: ReconciliationAnswer): string {
  if (answer.data.length === 0) return 'No live network is configured: nothing to reconcile (docs/reconciliation.md).\n';
  const header = ['NETWORK', 'ASSET', 'STATUS', 'ON CHAIN', 'LEDGER', 'DRIFT'];
  return textTable(
    header,
    answer.data.map((line) => ({
      cells: [line.network, line.asset, line.status, line.on_chain_total ?? '-', line.ledger_total, line.drift ?? '-'],
      details: detailsOf(line),
    })),
  );
}

function detailsOf(line: Line): string[] {
  const details: string[] = [];
  if (line.error) details.push(`  unavailable: ${line.error}`);
  if (line.hot_wallet) {
    const wallet = line.hot_wallet;
    details.push(`  hot wallet ${wallet.address}: ${wallet.balance ?? '-'} (paid out ${wallet.paid_out}, in flight ${wallet.in_flight})`);
  }
  for (const address of line.addresses) {
    details.push(`  ${address.reason.padEnd(10)} ${address.address}: on chain ${address.on_chain}, credited ${address.credited}, pending ${address.pending} (drift ${address.drift})`);
  }
  if (line.addresses_left_out > 0) details.push(`  … and ${line.addresses_left_out} more drifting addresses (GET /admin/v1/reconciliation)`);
  return details;
}

/** A shortfall fails the command (exit 1) once the report is printed; surplus and unavailable do not. */
function shortfalls(answer: ReconciliationAnswer): string | null {
  const short = answer.data.filter((line) => line.status === 'shortfall');
  if (short.length === 0) return null;
  return `Reconciliation: shortfall on ${short.map((line) => `${line.asset}/${line.network} (${line.drift})`).join(', ')}: the chain holds less than the ledger owes.`;
}

export function reconcileCommand(program: Command, run: RunVerb): void {
  program
    .command('reconcile')
    .description('Read the live chains now and compare deposit addresses and hot wallets with the ledger, per network and asset; exits 1 on any shortfall')
    .option('--network <network>', 'only this live network')
    .option('--json', 'print the operator API answer as JSON')
    .action((options: { network?: string; json?: boolean }) =>
      run({ method: 'POST', path: '/reconciliation', query: { network: options.network } }, undefined, {
        text: options.json ? undefined : (answer) => reconciliationText(answer as ReconciliationAnswer),
        failure: (answer) => shortfalls(answer as ReconciliationAnswer),
      }),
    );
}
