import fs from 'node:fs';
import type { Command } from 'commander';
import type { RunVerb } from './verbs.js';

/** The import file: a JSON array of `{ "owner": base58, "derivation_path": "m/44'/501'/i'/0'" }` (scripts/solana-owner-keys.ts writes one). */
function readKeyFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not a readable JSON file of owner keys (${(error as Error).message})`, { cause: error });
  }
}

export function solanaCommands(program: Command, run: RunVerb): void {
  const solana = program.command('solana').description('Live Solana deposits: the pool of owner keys deposit addresses are taken from');
  solana
    .command('import-owners')
    .description('Add owner public keys, derived offline from a seed, to a network\'s pool (keys imported before are left as they are)')
    .argument('<file>', 'JSON array of {"owner": "<base58 public key>", "derivation_path": "m/44\'/501\'/<i>\'/0\'"}')
    .option('--network <network>', 'the Solana network of the catalog', 'solana')
    .action((file: string, options: { network: string }) =>
      run({ method: 'POST', path: '/solana/owner-keys', body: { network: options.network, keys: readKeyFile(file) } }),
    );
}
