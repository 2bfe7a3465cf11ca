import { Type } from 'typebox';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { AcceptDiscrepancyBody, CreatePaymentIntentBody, PaymentIntent, presentIntent } from '../http/resources/payment-intent.js';
import { errorResponses, ExternalRefText, PARTNER_ERRORS, PathId } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['payment intents'];
const LIST = 'payment_intents';

export function paymentIntentRoutes(app: App, { db, clock, cursors, idempotency, paymentIntents, discrepancies }: AppContext): void {
  app.post(
    '/payment-intents',
    {
      config: { scope: 'intents:write', fundMoving: true, idempotent: true, errors: ['catalog_invalid', 'min_usdt_amount_requires_solana', 'provider_unavailable'] },
      schema: {
        summary: 'Create a payment intent',
        description: 'Each currency expands to one deposit address per active network, in priority order.',
        tags,
        body: CreatePaymentIntentBody,
        response: { 201: PaymentIntent, ...errorResponses(400, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await paymentIntents.create(request.caller!, request.body, idempotency.once(request, reply, (view) => ({ status: 201, body: presentIntent(view, clock.now()) }))),
      ),
  );

  app.get(
    '/payment-intents',
    {
      config: { scope: 'intents:read' },
      schema: {
        summary: 'List payment intents, newest first',
        description: 'Every intent of the tenant in this key\'s mode, or one end user\'s with `external_ref`. Each item is the full payment intent envelope, as GET /payment-intents/{payment_intent_id} answers it.',
        tags,
        querystring: Type.Object({ external_ref: Type.Optional(ExternalRefText("One end user's intents; an unknown ref gives an empty page.")), ...PageQuery }),
        response: { 200: ListEnvelope(PaymentIntent), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const page = await paymentIntents.list(db, tenantOf(request.caller!), request.query.external_ref, cursors.pageRequest(LIST, request.query));
      const now = clock.now();
      return cursors.envelope(LIST, page, (view) => presentIntent(view, now));
    },
  );

  app.get(
    '/payment-intents/:payment_intent_id',
    {
      config: { scope: 'intents:read', errors: ['invalid_payment_intent_id', 'resource_not_found'] },
      schema: {
        summary: 'Get a payment intent',
        description: 'The full envelope: status, amounts received and remaining, the last deposit. A malformed id answers 400 `invalid_payment_intent_id`; another tenant\'s id answers 404, as a missing one does.',
        tags,
        params: Type.Object({ payment_intent_id: PathId }),
        response: { 200: PaymentIntent, ...errorResponses(400, 404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentIntent(await paymentIntents.get(tenantOf(request.caller!), request.params.payment_intent_id), clock.now()),
  );

  app.post(
    '/payment-intents/:payment_intent_id/discrepancy/accept',
    {
      config: { scope: 'intents:write', idempotent: true, errors: ['invalid_payment_intent_id', 'resource_not_found', 'invalid_state'] },
      schema: {
        summary: "Accept a payment intent's discrepancy",
        description:
          'Keeps an overpayment, an underpayment or a late payment as it is (the other way out is a refund): records the ' +
          'decision on the envelope (`discrepancy.status` accepted) with a `payment_intent.discrepancy_accepted` event. The ' +
          "intent's status does not change. Only an open discrepancy can be accepted (409 invalid_state otherwise); a later " +
          'credit that changes the discrepancy reopens it.',
        tags,
        params: Type.Object({ payment_intent_id: PathId }),
        body: AcceptDiscrepancyBody,
        response: { 200: PaymentIntent, ...errorResponses(400, 404, 409, 422, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await discrepancies.accept(
          request.caller!,
          request.params.payment_intent_id,
          request.body.note ?? null,
          idempotency.once(request, reply, (view) => ({ status: 200, body: presentIntent(view, clock.now()) })),
        ),
      ),
  );
}
