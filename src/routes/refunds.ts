import { Type } from 'typebox';
import { PAYOUT_STATUSES } from '../domain/payouts.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { oneOf, parseList } from '../http/query.js';
import { ExecuteRefundBody, presentRefund, presentRefundQuote, Refund, RefundQuote, RefundQuoteBody } from '../http/resources/refund.js';
import { errorResponses, ExternalRefText, PARTNER_ERRORS, PathId, RequestText } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['refunds'];
const LIST = 'refunds';

/** Refunds of payment intents (docs/refunds.md): quoted and executed like payouts, with the payout scopes. */
export function refundRoutes(app: App, { db, cursors, idempotency, refunds }: AppContext): void {
  app.post(
    '/payment-intents/:id/refunds/quote',
    {
      config: {
        scope: 'payouts:write',
        fundMoving: true,
        idempotent: true,
        errors: ['invalid_payment_intent_id', 'resource_not_found', 'catalog_invalid', 'refund_exceeds_refundable', 'price_unavailable', 'provider_unavailable'],
      },
      schema: {
        summary: 'Quote a refund of a payment intent',
        description:
          'Fixes the refund for 60 seconds: the asset and network the intent received the money on, the amount (given, `all` that is ' +
          'still refundable, or the `excess` of an overpayment), the destination and the network fee, and who pays that fee ' +
          '(`network_fee`). Money received after expiry is refundable like any other. The balance that received the money pays ' +
          '(the intent\'s end user, or the organization). The destination is the partner\'s `destination`, or the address the payer ' +
          'submitted through a refund address request (`refund_address_id`): a refund never goes to the deposit\'s sender by default, ' +
          'which is often an exchange\'s shared wallet.',
        tags,
        params: Type.Object({ id: PathId }),
        body: RefundQuoteBody,
        response: { 201: RefundQuote, ...errorResponses(400, 404, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await refunds.quote(request.caller!, request.params.id, request.body, idempotency.once(request, reply, (view) => ({ status: 201, body: presentRefundQuote(view) }))),
      ),
  );

  app.post(
    '/refunds',
    {
      config: {
        scope: 'payouts:write',
        fundMoving: true,
        idempotent: true,
        errors: ['quote_already_used', 'quote_expired', 'quote_not_found', 'insufficient_funds', 'refund_exceeds_refundable', 'provider_unavailable'],
      },
      schema: {
        summary: 'Execute a refund quote',
        description:
          'Checks the intent can still refund the amount (other refunds may have been executed since the quote), reserves the funds ' +
          'and answers the refund, status pending; it then goes out as a payout does. Live quotes are single-use; in sandbox the ' +
          'refund id derives from the organization and quote_id, so executing a quote again answers the same refund.',
        tags,
        body: ExecuteRefundBody,
        response: { 201: Refund, ...errorResponses(400, 404, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(reply, await refunds.execute(request.caller!, request.body.quote_id, idempotency.once(request, reply, (refund) => ({ status: 201, body: presentRefund(refund) })))),
  );

  app.get(
    '/refunds',
    {
      config: { scope: 'payouts:read' },
      schema: {
        summary: 'List refunds, newest first',
        description: "The tenant's refunds in this key's mode, optionally of one payment intent, one end user, or by status.",
        tags,
        querystring: Type.Object({
          payment_intent_id: Type.Optional(RequestText(64, { description: "One payment intent's refunds." })),
          external_ref: Type.Optional(ExternalRefText("One end user's refunds; an unknown ref gives an empty page.")),
          status: Type.Optional(RequestText(128, { description: `Comma-separated: ${PAYOUT_STATUSES.join(', ')}.` })),
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(Refund), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const { query } = request;
      const filters = {
        paymentIntentId: query.payment_intent_id,
        externalRef: query.external_ref,
        statuses: parseList(query.status, 'status', oneOf(PAYOUT_STATUSES), PAYOUT_STATUSES.join(', ')),
      };
      const page = await refunds.list(db, tenantOf(request.caller!), filters, cursors.pageRequest(LIST, query));
      return cursors.envelope(LIST, page, presentRefund);
    },
  );

  app.get(
    '/refunds/:refund_id',
    {
      config: { scope: 'payouts:read', errors: ['resource_not_found'] },
      schema: {
        summary: 'Get a refund and its current status',
        description: 'Poll it to follow a refund: the status only moves forward (pending, processing, then completed or failed).',
        tags,
        params: Type.Object({ refund_id: PathId }),
        response: { 200: Refund, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentRefund(await refunds.get(db, tenantOf(request.caller!), request.params.refund_id)),
  );
}
