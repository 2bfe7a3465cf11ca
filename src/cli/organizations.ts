import { Option, type Command } from 'commander';
import { ORGANIZATION_STATUSES, type AssetNetworkPair, type OrganizationStatus } from '../domain/organizations.js';
import { integer, pair, withPageOptions, type PageOptions } from './options.js';
import { adminPath } from './operator-api.js';
import type { RunVerb } from './verbs.js';

const statusOption = () => new Option('--status <status>', 'verification status').choices(ORGANIZATION_STATUSES);

interface UpdateOptions {
  name?: string;
  status?: OrganizationStatus;
  intentTtlSeconds?: number;
  disablePair?: AssetNetworkPair[];
  clearDisabledPairs?: boolean;
}

export function organizationCommands(program: Command, run: RunVerb): void {
  const org = program.command('org').description('Manage organizations (tenants)');

  org
    .command('create')
    .description('Create an organization (pending_verification unless --status says otherwise)')
    .requiredOption('--name <name>', 'display name, 1 to 200 characters')
    .addOption(statusOption())
    .action((options: { name: string; status?: OrganizationStatus }) => {
      const body = { name: options.name, status: options.status };
      return run({ method: 'POST', path: '/organizations', body });
    });

  org
    .command('get')
    .description('Show an organization')
    .argument('<id>', 'organization id')
    .action((id: string) => run({ method: 'GET', path: adminPath`/organizations/${id}` }));

  withPageOptions(org.command('list').description('List organizations, newest first')).action((options: PageOptions) =>
    run({ method: 'GET', path: '/organizations', query: { ...options } }),
  );

  org
    .command('update')
    .description('Change name, status or settings; what is not given is kept')
    .argument('<id>', 'organization id')
    .option('--name <name>', 'new display name')
    .addOption(statusOption())
    .option('--intent-ttl-seconds <n>', 'payment intent lifetime, 1 s to 30 days', integer)
    .option('--disable-pair <ASSET:network...>', 'the complete list of disabled pairs (replaces the current one)', pair)
    .addOption(new Option('--clear-disabled-pairs', 'enable every catalog pair again').conflicts('disablePair'))
    .action((id: string, options: UpdateOptions) => {
      const pairs = options.clearDisabledPairs ? [] : options.disablePair;
      // Absent, not undefined: the service merges settings over the stored ones, and undefined would erase them.
      const settings = {
        ...(options.intentTtlSeconds === undefined ? {} : { intent_ttl_seconds: options.intentTtlSeconds }),
        ...(pairs === undefined ? {} : { disabled_pairs: pairs }),
      };
      const body = { name: options.name, status: options.status, settings };
      return run({ method: 'PATCH', path: adminPath`/organizations/${id}`, body });
    });
}
