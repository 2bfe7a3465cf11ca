import type { Command } from 'commander';
import { adminPath } from './operator-api.js';
import { Decimal } from '../domain/money.js';
import type { TreasuryPlanAnswer, TreasuryStatusAnswer } from '../http/resources/treasury.js';
import { textTable } from './text-table.js';
import type { RunVerb } from './verbs.js';

/**
 * One row per network and asset (the float's level, the hot wallet's balance, what pending payouts owe, the float after
 * the plan), then each sweep and skipped address under it.
 */
export function planText(answer: TreasuryPlanAnswer): string {
  if (answer.data.length === 0) return 'The treasury policy names no network (CONNECT_TREASURY_FILE): nothing is swept (docs/treasury.md).\n';
  const header = ['NETWORK', 'ASSET', 'FLOAT', 'HOT WALLET', 'OWED', 'AFTER', 'TARGET', 'SWEEPS', 'SKIPPED'];
  return textTable(
    header,
    answer.data.map((plan) => {
      const hot = plan.hot_wallet;
      return {
        cells: [plan.network, plan.asset, hot?.level ?? '-', hot?.balance ?? '-', hot?.owed ?? '-', hot?.after ?? '-', hot?.target ?? '-', String(plan.sweeps.length), String(plan.skipped.length)],
        details: [
          ...(plan.pause ? [`  paused since ${plan.pause.paused_at}: ${plan.pause.reason} (planned anyway: this is what resuming would do)`] : []),
          ...(plan.error ? [`  no plan: ${plan.error}`] : []),
          ...plan.sweeps.map((sweep) => `  sweep ${sweep.address}: ${sweep.amount} to ${sweep.to} (arrives ${sweep.arrives}, cost ${sweep.cost})`),
          ...plan.skipped.map((skip) => `  skip  ${skip.address}: ${skip.amount} (${skip.reason})`),
        ],
      };
    }),
  );
}

/** One row per network and asset: the float against its target, what deposit addresses hold, what would be swept and left. */
export function statusText(answer: TreasuryStatusAnswer): string {
  if (answer.data.length === 0) return 'The treasury policy names no network (CONNECT_TREASURY_FILE): nothing is swept (docs/treasury.md).\n';
  const header = ['NETWORK', 'ASSET', 'FLOAT', 'HOT WALLET', 'OWED', 'TARGET', 'ON DEPOSITS', 'TO SWEEP', 'LEFT', 'PLANNED'];
  return textTable(
    header,
    answer.data.map((status) => {
      const { summary } = status;
      const left = summary && new Decimal(summary.left.below_minimum).plus(summary.left.too_costly).plus(summary.left.float_full).toFixed();
      return {
        cells: [
          status.network,
          status.asset,
          status.float_level ?? '-',
          summary?.hot_wallet.balance ?? '-',
          summary?.hot_wallet.owed ?? '-',
          summary?.hot_wallet.target ?? '-',
          summary?.deposit_addresses.on_chain ?? '-',
          summary ? `${summary.planned.sweeps} (${summary.planned.to_hot_wallet} hot, ${summary.planned.to_cold_storage} cold)` : '-',
          left ?? '-',
          status.planned_at ?? 'never',
        ],
        details: [
          ...(status.pause ? [`  paused since ${status.pause.paused_at}: ${status.pause.reason}`] : []),
          ...(status.error ? [`  latest attempt made no plan (${status.checked_at}): ${status.error}`] : []),
        ],
      };
    }),
  );
}

export function treasuryCommands(program: Command, run: RunVerb): void {
  const treasury = program.command('treasury').description('The treasury policy (CONNECT_TREASURY_FILE) and pausing sweeps per network; see docs/treasury.md');
  treasury
    .command('networks')
    .description('Show each network of the treasury policy: its floats, cold address, sweep limits and whether sweeping is paused')
    .action(() => run({ method: 'GET', path: '/treasury/networks' }));
  treasury
    .command('status')
    .description('Show where the treasury stands per network and asset: the latest plan (periodic, or the last `treasury plan`), summed; reads nothing on chain')
    .option('--network <network>', 'only this network of the policy')
    .option('--json', 'print the operator API answer as JSON')
    .action((options: { network?: string; json?: boolean }) =>
      run({ method: 'GET', path: '/treasury/status', query: { network: options.network } }, undefined, {
        text: options.json ? undefined : (answer) => statusText(answer as TreasuryStatusAnswer),
      }),
    );
  treasury
    .command('plan')
    .description('Read the chains now and show what sweeping would do, per network and asset of the policy: a dry run, nothing is sent')
    .option('--network <network>', 'only this network of the policy')
    .option('--json', 'print the operator API answer as JSON')
    .action((options: { network?: string; json?: boolean }) =>
      run({ method: 'GET', path: '/treasury/plan', query: { network: options.network } }, undefined, {
        text: options.json ? undefined : (answer) => planText(answer as TreasuryPlanAnswer),
      }),
    );
  treasury
    .command('pause')
    .description('Pause sweeping on a network, in every process, until it is resumed (sweeps already sent are followed to their end)')
    .argument('<network>', 'a network of the treasury policy')
    .option('--reason <text>', 'why, shown with the pause')
    .action((network: string, options: { reason?: string }) =>
      run({ method: 'POST', path: adminPath`/treasury/networks/${network}/pause`, body: options.reason === undefined ? {} : { reason: options.reason } }),
    );
  treasury
    .command('resume')
    .description('Resume sweeping on a paused network')
    .argument('<network>', 'a network of the treasury policy')
    .action((network: string) => run({ method: 'POST', path: adminPath`/treasury/networks/${network}/resume` }));
}
