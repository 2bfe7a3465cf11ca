import type { Command } from 'commander';
import { adminPath } from './operator-api.js';
import type { RunVerb } from './verbs.js';

export function treasuryCommands(program: Command, run: RunVerb): void {
  const treasury = program.command('treasury').description('The treasury policy (CONNECT_TREASURY_FILE) and pausing sweeps per network; see docs/treasury.md');
  treasury
    .command('networks')
    .description('Show each network of the treasury policy: its floats, cold address, sweep limits and whether sweeping is paused')
    .action(() => run({ method: 'GET', path: '/treasury/networks' }));
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
