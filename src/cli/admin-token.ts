import type { Command } from 'commander';
import type { Config } from '../config.js';
import { adminTokenFile, readStoredAdminToken } from '../operator-files.js';
import type { Output } from './operator-api.js';

export function adminTokenCommand(program: Command, config: () => Config, stdout: Output): void {
  program
    .command('admin-token')
    .description(
      "Print the operator token the server generated and keeps in the embedded database's data directory (readable by its owner only). " +
        'With DATABASE_URL the token is CONNECT_ADMIN_TOKEN, which this does not print.',
    )
    .action(() => {
      const { databaseUrl, dataDir } = config();
      if (databaseUrl) throw new Error('With DATABASE_URL the operator token is the CONNECT_ADMIN_TOKEN the servers are given; none is stored.');
      const token = readStoredAdminToken(dataDir);
      if (!token) throw new Error(`No operator token in ${adminTokenFile(dataDir)}: the server generates one at its first start there.`);
      stdout.write(`${token}\n`);
    });
}
