import { Type } from 'typebox';
import { DomainError } from '../domain/errors.js';
import { EVENT_TYPES, isEventType } from '../domain/events.js';
import { isUuid } from '../domain/ids.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { PageQuery } from '../http/pagination.js';
import { sendJsonText } from '../http/raw-json.js';
import { DateRangeQuery, parseDateRange, parseList } from '../http/query.js';
import { Event, EVENT_JSON, EventList, eventListJson } from '../http/resources/event.js';
import { presentDelivery, WebhookDelivery } from '../http/resources/webhook-delivery.js';
import { errorResponses, PARTNER_ERRORS, PathId, RequestText } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['events'];

const LIST = 'events';
const TYPES = Object.keys(EVENT_TYPES).join(', ');

export function eventRoutes(app: App, { db, cursors, events, idempotency, webhooks }: AppContext): void {
  app.get(
    '/events',
    {
      config: { scope: 'events:read', errors: ['invalid_type'] },
      schema: {
        summary: 'List events, newest first',
        description: 'The immutable event log of this key\'s mode, filtered by type, principal object and an inclusive `created_at` range. An unknown type answers 400 `invalid_type`.',
        tags,
        querystring: Type.Object({
          type: Type.Optional(RequestText(512, { description: `Comma-separated event types: ${TYPES}.` })),
          related_to: Type.Optional(RequestText(36, { description: 'UUID of the principal object.' })),
          livemode: Type.Optional(RequestText(5, { description: 'true or false; omit for both (a key only ever sees its own mode).' })),
          ...DateRangeQuery,
          ...PageQuery,
        }),
        response: { 200: EventList, ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request.caller!);
      const { query } = request;
      const types = parseList(query.type, 'type', isEventType, TYPES, 'invalid_type');
      if (query.related_to !== undefined && !isUuid(query.related_to)) {
        throw new DomainError('invalid_request', 'related_to must be a UUID.', 'related_to');
      }
      if (query.livemode !== undefined && query.livemode !== 'true' && query.livemode !== 'false') {
        throw new DomainError('invalid_request', 'livemode must be true or false.', 'livemode');
      }
      const filters = { types, relatedTo: query.related_to, ...parseDateRange(query) };
      const pageRequest = cursors.pageRequest(LIST, query);
      // Sandbox and live never mix: asking a sandbox key for live events (or the reverse) finds none.
      if (query.livemode !== undefined && (query.livemode === 'true') !== (tenant.mode === 'live')) {
        return { has_more: false, data: [], cursor: null };
      }
      const page = await events.list(db, tenant, filters, pageRequest, EVENT_JSON);
      const cursor = page.hasMore && page.last ? cursors.encode(LIST, page.last) : null;
      return sendJsonText(reply, eventListJson({ has_more: page.hasMore, cursor }, page.items));
    },
  );

  app.get(
    '/events/:event_id',
    {
      config: { scope: 'events:read', errors: ['event_not_found'] },
      schema: {
        summary: 'Get an event',
        description: 'Unknown, other-tenant and malformed ids all answer 404 event_not_found.',
        tags,
        params: Type.Object({ event_id: PathId }),
        response: { 200: Event, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) => sendJsonText(reply, (await events.get(db, tenantOf(request.caller!), request.params.event_id, EVENT_JSON)).json),
  );

  app.post(
    '/events/:event_id/replay',
    {
      config: { scope: 'events:write', idempotent: true, errors: ['event_not_found', 'webhook_endpoint_not_configured'] },
      schema: {
        summary: 'Queue a fresh webhook delivery of an event',
        description:
          'The delivery carries the same event id (body `event_id`, headers `X-Service-Event-Id` and `webhook-id`), so a receiver ' +
          'that already has the event can recognise it. Answers 202 with the queued delivery. No request body.',
        tags,
        params: Type.Object({ event_id: PathId }),
        response: { 202: WebhookDelivery, ...errorResponses(400, 404, 409, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await webhooks.replayOnce(tenantOf(request.caller!), request.params.event_id, idempotency.once(request, reply, (delivery) => ({ status: 202, body: presentDelivery(delivery) }))),
      ),
  );
}
