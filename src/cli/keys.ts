import { Option, type Command } from 'commander';
import type { KeyMode } from '../domain/api-keys.js';
import { SCOPES } from '../domain/scopes.js';
import { CreateApiKeyBody, presentApiKey } from '../routes/admin/schemas.js';
import { keyList } from '../use-cases/operator.js';
import { checked, commaList, integer, withPageOptions, type PageOptions } from './options.js';
import type { RunVerb } from './run.js';

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
      const body = checked(CreateApiKeyBody, {
        mode: options.mode,
        expires_at: options.expiresAt,
        scopes: options.scopes,
        rate_limit_rps: options.rateLimitRps,
      });
      return run(async ({ operator }) => presentApiKey(await operator.createApiKey(organizationId, body)));
    });

  withPageOptions(
    key.command('list').description("List an organization's keys, newest first").argument('<organization_id>'),
  ).action((organizationId: string, options: PageOptions) =>
    run(async ({ operator, cursors }) => {
      // The admin API's list name: a cursor from either one works with the other.
      const list = keyList(organizationId);
      const page = await operator.listApiKeys(organizationId, cursors.pageRequest(list, options));
      return cursors.envelope(list, page, presentApiKey);
    }),
  );

  key
    .command('get')
    .description('Show an API key (never its secret)')
    .argument('<key_id>')
    .action((id: string) => run(async ({ operator }) => presentApiKey(await operator.getApiKey(id))));

  key
    .command('rotate')
    .description('Replace a key with a new one (same mode, scopes, limit, expiry); the old one stops working at once')
    .argument('<key_id>')
    .action((id: string) => run(async ({ operator }) => presentApiKey(await operator.rotateApiKey(id))));

  key
    .command('revoke')
    .description('Revoke a key at once')
    .argument('<key_id>')
    .action((id: string) => run(async ({ operator }) => presentApiKey(await operator.revokeApiKey(id))));
}
