import { Argument, Option, type Command } from 'commander';
import type { KeyMode } from '../domain/api-keys.js';
import { DELIVERY_STATES, REPLAYABLE_STATES, type DeliveryState, type ReplayableState } from '../domain/webhooks.js';
import { adminPath } from './operator-api.js';
import { integer, withPageOptions, type PageOptions } from './options.js';
import type { RunVerb } from './verbs.js';

const MODES = ['test', 'live'] satisfies KeyMode[];
const modeArgument = (command: Command) =>
  command.argument('<organization_id>').addArgument(new Argument('<mode>', 'test (sandbox) or live').choices(MODES));

export function webhookCommands(program: Command, run: RunVerb): void {
  const webhook = program.command('webhook').description("Manage organizations' webhook endpoints and deliveries");

  modeArgument(webhook.command('set').description('Create or replace the endpoint of a mode (the secret is printed when it is created)'))
    .requiredOption('--url <url>', 'where deliveries go (live: https and a public address)')
    .option('--disabled', 'keep the endpoint but send nothing (ends deliveries still waiting)')
    .action((organizationId: string, mode: KeyMode, options: { url: string; disabled?: boolean }) => {
      const body = { url: options.url, enabled: !options.disabled };
      return run({ method: 'PUT', path: adminPath`/organizations/${organizationId}/webhooks/${mode}`, body });
    });

  webhook
    .command('list')
    .description("Show an organization's endpoints (never their secrets)")
    .argument('<organization_id>')
    .action((organizationId: string) => run({ method: 'GET', path: adminPath`/organizations/${organizationId}/webhooks` }));

  modeArgument(webhook.command('rotate-secret').description('Replace the signing secret; the new one is printed this once'))
    .option('--previous-secret-valid-seconds <n>', 'how long the old secret keeps signing too (default 86400)', integer)
    .action((organizationId: string, mode: KeyMode, options: { previousSecretValidSeconds?: number }) => {
      const body = { previous_secret_valid_seconds: options.previousSecretValidSeconds };
      return run({ method: 'POST', path: adminPath`/organizations/${organizationId}/webhooks/${mode}/rotate-secret`, body });
    });

  withPageOptions(
    webhook
      .command('deliveries')
      .description("List an organization's deliveries, newest first")
      .argument('<organization_id>')
      .option('--event-id <event_id>', 'only the deliveries of this event')
      .addOption(new Option('--status <state>', 'only deliveries in this state').choices(DELIVERY_STATES))
      .addOption(new Option('--mode <mode>', 'only this mode').choices(MODES)),
  ).action((organizationId: string, options: PageOptions & { eventId?: string; status?: DeliveryState; mode?: KeyMode }) =>
    run({
      method: 'GET',
      path: adminPath`/organizations/${organizationId}/webhook-deliveries`,
      query: { event_id: options.eventId, status: options.status, mode: options.mode, limit: options.limit, cursor: options.cursor },
    }),
  );

  modeArgument(webhook.command('replay').description('Queue fresh deliveries for every event of a range whose latest delivery ended in --state'))
    .requiredOption('--from <date-time>', 'inclusive lower bound on the events created_at')
    .requiredOption('--to <date-time>', 'inclusive upper bound (a bare date covers that whole day)')
    .addOption(new Option('--state <state>', 'how the latest delivery ended; none = never delivered').choices(REPLAYABLE_STATES).default('dead'))
    .action((organizationId: string, mode: KeyMode, options: { from: string; to: string; state: ReplayableState }) => {
      return run({ method: 'POST', path: adminPath`/organizations/${organizationId}/webhooks/${mode}/replay`, body: options });
    });
}
