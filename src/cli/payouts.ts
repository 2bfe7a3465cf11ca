import type { Command } from 'commander';
import { withPageOptions, type PageOptions } from './options.js';
import { adminPath } from './operator-api.js';
import type { RunVerb } from './verbs.js';

interface ListOptions extends PageOptions {
  status?: string;
  network?: string;
}

export function payoutCommands(program: Command, run: RunVerb): void {
  const payouts = program.command('payouts').description('Find a stuck live payout, look at it on chain, cancel it');

  withPageOptions(
    payouts
      .command('list')
      .description('List open live payouts of every organization, oldest first')
      .option('--status <statuses>', 'comma-separated: pending, processing (default both)')
      .option('--network <network>', 'only the payouts on this network'),
  ).action((options: ListOptions) => run({ method: 'GET', path: '/payouts', query: { ...options } }));

  payouts
    .command('show')
    .description("Show a live payout, the payout engine's state, its nonce and every transaction signed at it")
    .argument('<payout_id>', 'payout id')
    .action((id: string) => run({ method: 'GET', path: adminPath`/payouts/${id}` }));

  payouts
    .command('cancel')
    .description('Ask for an open live payout to be cancelled; the payout engine carries it out at its next attempt')
    .argument('<payout_id>', 'payout id')
    .action((id: string) => run({ method: 'POST', path: adminPath`/payouts/${id}/cancel` }));
}
