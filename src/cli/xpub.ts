import { InvalidArgumentError, type Command } from 'commander';
import type { RunVerb } from './verbs.js';

function index(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('a non-negative integer');
  return Number(raw);
}

export function xpubCommands(program: Command, run: RunVerb): void {
  const xpub = program.command('xpub').description('Which xpub this database hands out EVM and Tron deposit addresses from, and from which index');
  xpub
    .command('status')
    .description('Show, per live family, the configured xpub\'s fingerprint, whether this database claimed it and its next index')
    .action(() => run({ method: 'GET', path: '/xpub-claims' }));
  xpub
    .command('claim')
    .description(
      'Let this database hand out the configured xpub\'s addresses, from --start-index on (past every index any other database used), ' +
        'or from 0 with --first-use (no database ever used it). Again with a higher --start-index: moves the next index up (a restored backup)',
    )
    .argument('<family>', 'evm or tron')
    .option('--start-index <n>', 'the first index this database hands out', index)
    .option('--first-use', 'no database ever handed out this xpub\'s addresses')
    .action((family: string, options: { startIndex?: number; firstUse?: boolean }) =>
      run({ method: 'POST', path: '/xpub-claims', body: { family, ...(options.startIndex !== undefined ? { start_index: options.startIndex } : {}), ...(options.firstUse ? { first_use: true } : {}) } }),
    );
}
