import { Type } from 'typebox';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import {
  CreateRefundAddressRequestBody,
  presentRefundAddressRequest,
  RefundAddressRequest,
} from '../http/resources/refund-address-request.js';
import { errorResponses, PARTNER_ERRORS, PathId } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['refund address requests'];

/**
 * The refund address the payer gives: a single-use link for the hosted page, made for an intent that received
 * money. The payer's submission is the event `refund_address.submitted`; a refund quote then names the request.
 */
export function refundAddressRequestRoutes(app: App, { db, clock, idempotency, refundAddressRequests }: AppContext): void {
  app.post(
    '/payment-intents/:payment_intent_id/refund-address-requests',
    {
      config: { scope: 'intents:write', idempotent: true, errors: ['invalid_payment_intent_id', 'resource_not_found', 'invalid_request'] },
      schema: {
        summary: 'Ask the payer for a refund address',
        description:
          'Makes a single-use link to the hosted page on which the payer chooses one of the networks the intent received money on ' +
          'and gives an address of a wallet they control (checked with the network\'s codec, checksums included where the format has one: a Solana key has none, and the page warns the payer). The `url` is ' +
          'answered only here (a replay under the same Idempotency-Key answers it null: it is never stored): send it to the payer. When they submit, the event `refund_address.submitted` carries the address. ' +
          'An intent that received nothing answers 400.',
        tags,
        params: Type.Object({ payment_intent_id: PathId }),
        body: CreateRefundAddressRequestBody,
        response: { 201: RefundAddressRequest, ...errorResponses(400, 404, 409, 422, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await refundAddressRequests.createOnce(
          tenantOf(request.caller!),
          request.params.payment_intent_id,
          request.body,
          // The link is the payer's capability: never stored readable, so a replay answers it null.
          idempotency.once(request, reply, (created) => ({ status: 201, body: presentRefundAddressRequest(created, clock.now()), secrets: ['url'] })),
        ),
      ),
  );

  app.get(
    '/refund-address-requests/:id',
    {
      config: { scope: 'intents:read', errors: ['resource_not_found'] },
      schema: {
        summary: 'Get a refund address request',
        description: 'Its status and, once the payer submitted, the pair and address they gave. The link itself is never shown again (`url` is null).',
        tags,
        params: Type.Object({ id: PathId }),
        response: { 200: RefundAddressRequest, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentRefundAddressRequest(await refundAddressRequests.get(db, tenantOf(request.caller!), request.params.id), clock.now()),
  );

  app.post(
    '/refund-address-requests/:id/cancel',
    {
      config: { scope: 'intents:write', idempotent: true, errors: ['resource_not_found', 'invalid_state'] },
      schema: {
        summary: 'Cancel a refund address request',
        description: 'The link stops working at once. Only an open request can be cancelled: a submitted or expired one answers 409.',
        tags,
        params: Type.Object({ id: PathId }),
        response: { 200: RefundAddressRequest, ...errorResponses(404, 409, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await refundAddressRequests.cancelOnce(
          tenantOf(request.caller!),
          request.params.id,
          idempotency.once(request, reply, (cancelled) => ({ status: 200, body: presentRefundAddressRequest(cancelled, clock.now()) })),
        ),
      ),
  );
}
