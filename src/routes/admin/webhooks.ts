import { Type, type Static } from 'typebox';
import { DELIVERY_STATES, MAX_ROTATION_GRACE_SECONDS, REPLAYABLE_STATES } from '../../domain/webhooks.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { ListEnvelope, PageQuery } from '../../http/pagination.js';
import { parseBound } from '../../http/query.js';
import { presentDelivery, WebhookDelivery } from '../../http/resources/webhook-delivery.js';
import { errorResponses, iso, isoOrNull, PathId, RequestText, Timestamp, Uuid } from '../../http/schemas.js';
import { deliveryList, type EndpointView } from '../../use-cases/webhooks.js';
import { KeyMode } from './schemas.js';

const tags = ['operator'];

export const WebhookEndpoint = Type.Object(
  {
    object: Type.Literal('webhook_endpoint'),
    organization_id: Uuid,
    mode: KeyMode,
    url: Type.String(),
    enabled: Type.Boolean(),
    secret: Type.Optional(
      Type.String({ description: 'whsec_…: present only in the responses that create the endpoint or rotate its secret.' }),
    ),
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'Until then deliveries carry a second signature made with the secret before the last rotation.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);

export const PutEndpointBody = Type.Object(
  {
    url: RequestText(2048, { description: 'Live: https, resolving to public addresses only. Sandbox: http or https, localhost allowed.' }),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true. Disabling ends the deliveries still waiting (state dead).' })),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  {
    previous_secret_valid_seconds: Type.Optional(
      Type.Integer({ description: `How long the old secret keeps signing beside the new one: 0 to ${MAX_ROTATION_GRACE_SECONDS}, default 86400.` }),
    ),
  },
  { additionalProperties: false },
);

export const BulkReplayBody = Type.Object(
  {
    from: RequestText(40, { description: 'Inclusive lower bound on the events created_at (ISO 8601; UTC if no zone).' }),
    to: RequestText(40, { description: 'Inclusive upper bound; a bare date covers that whole day.' }),
    state: Type.Optional(
      Type.Enum(REPLAYABLE_STATES, {
        description: "How the event's most recent delivery ended (default dead); none = the event never had a delivery.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const BulkReplay = Type.Object({
  object: Type.Literal('webhook_replay'),
  mode: KeyMode,
  queued: Type.Integer({ description: 'Deliveries queued, sent in event order.' }),
});

/** An enum (not a union of constants) in requests, so that a wrong value is answered with the allowed ones. */
const ModeInput = Type.Enum(['test', 'live'], { description: 'test (sandbox) or live' });
const ModeParams = Type.Object({ id: PathId, mode: ModeInput });

export function presentEndpoint(view: EndpointView): Static<typeof WebhookEndpoint> {
  return {
    object: 'webhook_endpoint',
    organization_id: view.organization_id,
    mode: view.mode,
    url: view.url,
    enabled: view.enabled,
    ...(view.revealSecret ? { secret: view.secret } : {}),
    previous_secret_expires_at: isoOrNull(view.previous_secret_expires_at),
    created_at: iso(view.created_at),
    updated_at: iso(view.updated_at),
  };
}

export function adminWebhookRoutes(app: App, { webhooks, cursors }: AppContext): void {
  app.put(
    '/organizations/:id/webhooks/:mode',
    {
      schema: {
        summary: "Create or replace the organization's webhook endpoint for a mode",
        description: 'Answers 201 with the signing secret when the endpoint is created; 200 (no secret) when it is changed.',
        tags,
        params: ModeParams,
        body: PutEndpointBody,
        response: { 200: WebhookEndpoint, 201: WebhookEndpoint, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      const endpoint = await webhooks.configure(request.params.id, request.params.mode, request.body);
      return reply.code(endpoint.created ? 201 : 200).send(presentEndpoint(endpoint));
    },
  );

  app.get(
    '/organizations/:id/webhooks',
    {
      schema: {
        summary: "The organization's webhook endpoints (never their secrets)",
        description: 'At most one endpoint per mode (test, live).',
        tags,
        params: Type.Object({ id: PathId }),
        response: { 200: Type.Object({ data: Type.Array(WebhookEndpoint) }), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ data: (await webhooks.endpoints(request.params.id)).map(presentEndpoint) }),
  );

  app.post(
    '/organizations/:id/webhooks/:mode/rotate-secret',
    {
      config: { optionalBody: true },
      // The body is optional: none at all means the default grace.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        summary: 'Replace the signing secret (shown in this response only)',
        description: 'The previous secret signs too, as a second signature, for previous_secret_valid_seconds (default 24 h).',
        tags,
        params: ModeParams,
        body: RotateSecretBody,
        response: { 200: WebhookEndpoint, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) =>
      presentEndpoint(await webhooks.rotateSecret(request.params.id, request.params.mode, request.body.previous_secret_valid_seconds)),
  );

  app.post(
    '/organizations/:id/webhooks/:mode/replay',
    {
      schema: {
        summary: 'Queue fresh deliveries for every event of a time range whose latest delivery ended in `state`',
        description: 'For recovering from a receiver outage: every matching event gets a new delivery, with its original event id.',
        tags,
        params: ModeParams,
        body: BulkReplayBody,
        response: { 202: BulkReplay, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id, mode } = request.params;
      const range = { from: parseBound(request.body.from, 'from', 'lower')!, to: parseBound(request.body.to, 'to', 'upper')! };
      const queued = await webhooks.bulkReplay(id, mode, range, request.body.state ?? 'dead');
      return reply.code(202).send({ object: 'webhook_replay', mode, queued });
    },
  );

  app.get(
    '/organizations/:id/webhook-deliveries',
    {
      schema: {
        summary: "List an organization's webhook deliveries, newest first",
        description: 'Each delivery with its state, attempts and the last answer of the receiver.',
        tags,
        params: Type.Object({ id: PathId }),
        querystring: Type.Object({
          event_id: Type.Optional(RequestText(64, { description: 'Only the deliveries of this event.' })),
          status: Type.Optional(Type.Enum(DELIVERY_STATES, { description: 'Only deliveries in this state.' })),
          mode: Type.Optional(ModeInput),
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(WebhookDelivery), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { event_id: eventId, status: state, mode } = request.query;
      const list = deliveryList(id);
      const page = await webhooks.deliveries(id, { eventId, state, mode }, cursors.pageRequest(list, request.query));
      return cursors.envelope(list, page, presentDelivery);
    },
  );
}
