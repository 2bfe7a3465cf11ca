import type { Command } from 'commander';
import { withPageOptions, type PageOptions } from './options.js';
import type { RunVerb } from './verbs.js';

export function depositCommands(program: Command, run: RunVerb): void {
  const deposits = program.command('deposits').description('Look at live deposits the chain watchers could not credit');
  withPageOptions(
    deposits
      .command('quarantined')
      .description('List the deposits whose credit failed and is tried again later, newest first')
      .option('--network <network>', 'only the deposits of this network'),
  ).action((options: PageOptions & { network?: string }) =>
    run({ method: 'GET', path: '/deposits/quarantined', query: { network: options.network, limit: options.limit, cursor: options.cursor } }),
  );
}
