import { Option, type Command } from 'commander';
import { ORGANIZATION_STATUSES, type AssetNetworkPair, type OrganizationStatus } from '../domain/organizations.js';
import { CreateOrganizationBody, presentOrganization, UpdateOrganizationBody } from '../routes/admin/schemas.js';
import { ORGANIZATION_LIST } from '../use-cases/operator.js';
import { checked, integer, pair, withPageOptions, type PageOptions } from './options.js';
import type { RunVerb } from './run.js';

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
      const body = checked(CreateOrganizationBody, { name: options.name, status: options.status });
      return run(async ({ operator }) => presentOrganization(await operator.createOrganization(body)));
    });

  org
    .command('get')
    .description('Show an organization')
    .argument('<id>', 'organization id')
    .action((id: string) => run(async ({ operator }) => presentOrganization(await operator.getOrganization(id))));

  withPageOptions(org.command('list').description('List organizations, newest first')).action((options: PageOptions) =>
    run(async ({ operator, cursors }) => {
      // The admin API's list name: a cursor from either one works with the other.
      const list = ORGANIZATION_LIST;
      return cursors.envelope(list, await operator.listOrganizations(cursors.pageRequest(list, options)), presentOrganization);
    }),
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
      const body = checked(UpdateOrganizationBody, { name: options.name, status: options.status, settings });
      return run(async ({ operator }) => presentOrganization(await operator.updateOrganization(id, body)));
    });
}
