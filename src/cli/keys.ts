import { Option, type Command } from 'commander';
import type { KeyMode } from '../domain/api-keys.js';
import { SCOPES } from '../domain/scopes.js';
import { commaList, integer, withPageOptions, type PageOptions } from './options.js';
import { adminPath } from './operator-api.js';
import type { RunVerb } from './verbs.js';

interface CreateOptions {
  mode: KeyMode;
  expiresAt?: string;
  scopes?: string[];
  rateLimitRps?: number;
}

export function keyCommands(program: Command, run: RunVerb): void {
  const key = program.command('key').description("Manage organizations' API keys");

  key
    .command('create')
    .description('Create an API key; its secret is printed this once and never again')
    .argument('<organization_id>', 'organization the key belongs to')
    .addOption(
      new Option('--mode <mode>', 'sandbox (test) or real money (live)').choices(['test', 'live'] satisfies KeyMode[]).makeOptionMandatory(),
    )
    .option('--expires-at <date-time>', 'ISO 8601 date-time after which the key stops working (default: never)')
    .option('--scopes <scopes>', `comma-separated (default: all of ${SCOPES.join(', ')})`, commaList)
    .option('--rate-limit-rps <n>', 'requests per second, 1 to 100000 (default 25 for test, 100 for live)', integer)
    .action((organizationId: string, options: CreateOptions) => {
      const body = {
        mode: options.mode,
        expires_at: options.expiresAt,
        scopes: options.scopes,
        rate_limit_rps: options.rateLimitRps,
      };
      return run({ method: 'POST', path: adminPath`/organizations/${organizationId}/keys`, body });
    });

  withPageOptions(
    key.command('list').description("List an organization's keys, newest first").argument('<organization_id>'),
  ).action((organizationId: string, options: PageOptions) =>
    run({ method: 'GET', path: adminPath`/organizations/${organizationId}/keys`, query: { ...options } }),
  );

  key
    .command('get')
    .description('Show an API key (never its secret)')
    .argument('<key_id>')
    .action((id: string) => run({ method: 'GET', path: adminPath`/keys/${id}` }));

  key
    .command('rotate')
    .description('Replace a key with a new one (same mode, scopes, limit, expiry); the old one stops working at once')
    .argument('<key_id>')
    .action((id: string) => run({ method: 'POST', path: adminPath`/keys/${id}/rotate` }));

  key
    .command('revoke')
    .description('Revoke a key at once')
    .argument('<key_id>')
    .action((id: string) => run({ method: 'DELETE', path: adminPath`/keys/${id}` }));
}
