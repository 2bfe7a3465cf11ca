import type { KeyMode } from '../domain/api-keys.js';
import { DomainError, notFound } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  generateWebhookSecret,
  MAX_ROTATION_GRACE_SECONDS,
  type DeliveryState,
  type ReplayableState,
} from '../domain/webhooks.js';
import { checkDestination, type Resolve } from '../providers/webhooks/destination-policy.js';
import type { Database, Sql } from '../store/database.js';
import { findOrganization } from '../store/organizations.js';
import type { PageRequest } from '../store/pagination.js';
import type { Tenant } from '../domain/tenancy.js';
import * as deliveries from '../store/webhook-deliveries.js';
import type { DeliveryRow } from '../store/webhook-deliveries.js';
import * as endpoints from '../store/webhook-endpoints.js';
import type { WebhookEndpointRow } from '../store/webhook-endpoints.js';
import type { EventLog } from './events.js';
import type { Answer, Once, Operations } from './once.js';

/** A delivery as the API and the dashboard present it. */
export type { DeliveryRow };

/** An endpoint as the operator API shows it; `secret` only in the answers that create or rotate it. */
export type EndpointView = WebhookEndpointRow & { revealSecret: boolean };

/** Cursor list name shared by the admin API and the CLI. */
export const deliveryList = (organizationId: string) => `webhook-deliveries:${organizationId}`;

const notConfigured = (mode: KeyMode) =>
  new DomainError(
    'webhook_endpoint_not_configured',
    `No enabled webhook endpoint for ${mode === 'live' ? 'live' : 'sandbox'} events; the operator configures one.`,
  );

/** Webhook endpoints (the operator's), deliveries and replays. */
export class Webhooks {
  constructor(
    private readonly db: Database,
    private readonly events: EventLog,
    private readonly resolve: Resolve,
    private readonly operations: Operations,
  ) {}

  /** PUT semantics: the endpoint becomes exactly `{url, enabled}` (enabled unless said otherwise). */
  async configure(organizationId: string, mode: KeyMode, input: { url: string; enabled?: boolean }): Promise<EndpointView & { created: boolean }> {
    await this.organization(organizationId);
    const problem = await checkDestination(input.url, mode, this.resolve);
    if (problem) throw new DomainError('invalid_request', problem, 'url');
    const enabled = input.enabled ?? true;
    return this.db.transaction(async (tx) => {
      const { endpoint, created } = await endpoints.upsertEndpoint(tx, {
        organizationId,
        mode,
        url: input.url,
        enabled,
        secret: generateWebhookSecret(),
      });
      if (!enabled) await deliveries.endOutstanding(tx, organizationId, mode, 'endpoint disabled');
      return { ...endpoint, created, revealSecret: created };
    });
  }

  async rotateSecret(organizationId: string, mode: KeyMode, graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS): Promise<EndpointView> {
    if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_ROTATION_GRACE_SECONDS) {
      throw new DomainError(
        'invalid_request',
        `previous_secret_valid_seconds must be a whole number from 0 to ${MAX_ROTATION_GRACE_SECONDS}.`,
        'previous_secret_valid_seconds',
      );
    }
    await this.organization(organizationId);
    const endpoint = await endpoints.rotateSecret(this.db, organizationId, mode, generateWebhookSecret(), graceSeconds);
    if (!endpoint) {
      throw new DomainError('resource_not_found', `This organization has no ${mode} webhook endpoint; create it with PUT first.`, 'mode');
    }
    return { ...endpoint, revealSecret: true };
  }

  async endpoints(organizationId: string): Promise<EndpointView[]> {
    await this.organization(organizationId);
    return (await endpoints.listEndpoints(this.db, organizationId)).map((e) => ({ ...e, revealSecret: false }));
  }

  async deliveries(
    organizationId: string,
    filters: { mode?: KeyMode; eventId?: string; state?: DeliveryState },
    page: PageRequest,
  ) {
    await this.organization(organizationId);
    return deliveries.listDeliveries(this.db, organizationId, filters, page);
  }

  /** Fresh deliveries, in event order, for every event of the range whose latest delivery ended in `state`. */
  async bulkReplay(organizationId: string, mode: KeyMode, range: { from: Date; to: Date }, state: ReplayableState): Promise<number> {
    if (range.from.getTime() > range.to.getTime()) throw new DomainError('invalid_request', 'from must not be after to.', 'from');
    await this.organization(organizationId);
    return this.db.transaction(async (tx) => {
      const endpoint = await endpoints.findEndpoint(tx, organizationId, mode);
      if (!endpoint?.enabled) throw notConfigured(mode);
      return deliveries.queueBulkReplay(tx, organizationId, mode, range, state);
    });
  }

  /** POST /events/{id}/replay, once per idempotency key (`replay`). */
  replayOnce(tenant: Tenant, eventId: string, once: Once<DeliveryRow>): Promise<Answer> {
    return this.operations.once(once, async () => async (tx) => ({ value: await this.replay(tx, tenant, eventId) }));
  }

  /** The partner's replay on the operator's behalf (the dashboard), in a transaction of its own. */
  replayForOperator(tenant: Tenant, eventId: string): Promise<DeliveryRow> {
    return this.db.transaction((tx) => this.replay(tx, tenant, eventId));
  }

  /** The partner's replay: one fresh delivery of the event, same event id, to the key's mode's endpoint. */
  private async replay(tx: Sql, tenant: Tenant, eventId: string): Promise<DeliveryRow> {
    await this.events.summary(tx, tenant, eventId);
    const delivery = await deliveries.queueReplay(tx, tenant.organizationId, tenant.mode, eventId);
    if (!delivery) throw notConfigured(tenant.mode);
    return delivery;
  }

  private async organization(id: string): Promise<void> {
    if (!isUuid(id) || !(await findOrganization(this.db, id))) throw notFound('organization');
  }
}
