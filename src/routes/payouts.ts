import { Type } from 'typebox';
import { PAYOUT_STATUSES } from '../domain/payouts.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { oneOf, parseList } from '../http/query.js';
import { ExecuteBody, Payout, PayoutQuote, presentPayout, presentQuote, QuoteBody } from '../http/resources/payout.js';
import { errorResponses, ExternalRefText, PARTNER_ERRORS, PathId, RequestText } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['payouts'];
const LIST = 'payouts';

export function payoutRoutes(app: App, { db, config, cursors, idempotency, payouts, payoutQuotes, payoutExecution }: AppContext, partnerPrefix: string): void {
  const trackingBase = `${config.publicUrl}${partnerPrefix}`;

  app.post(
    '/payouts/quote',
    {
      config: { scope: 'payouts:write', fundMoving: true, idempotent: true, errors: ['catalog_invalid', 'price_unavailable', 'provider_unavailable'] },
      schema: {
        summary: 'Quote a payout',
        description:
          'Fixes asset, amount, destination and route for 60 seconds. The network fee comes on top of `amount` (`user_sends` = ' +
          '`recipient_gets` + fee). Without `network_hint` the cheapest network the balance covers is chosen.',
        tags,
        body: QuoteBody,
        response: { 201: PayoutQuote, ...errorResponses(400, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(reply, await payoutQuotes.quote(request.caller!, request.body, idempotency.once(request, reply, (view) => ({ status: 201, body: presentQuote(view) })))),
  );

  app.post(
    '/payouts',
    {
      config: { scope: 'payouts:write', fundMoving: true, idempotent: true, errors: ['quote_already_used', 'quote_expired', 'quote_not_found', 'insufficient_funds', 'price_unavailable', 'provider_unavailable'] },
      schema: {
        summary: 'Execute a payout quote',
        description:
          'Reserves the funds and answers the payout, status pending. Live quotes are single-use; in sandbox the payout id ' +
          'derives from the organization and quote_id, so executing a quote again answers the same payout.',
        tags,
        body: ExecuteBody,
        response: { 201: Payout, ...errorResponses(400, 404, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(
        reply,
        await payoutExecution.executeQuote(request.caller!, request.body.quote_id, idempotency.once(request, reply, (payout) => ({ status: 201, body: presentPayout(payout, trackingBase) }))),
      ),
  );

  app.get(
    '/payouts',
    {
      config: { scope: 'payouts:read' },
      schema: {
        summary: 'List payouts, newest first',
        description: 'The tenant\'s payouts in this key\'s mode, or one end user\'s with `external_ref`, optionally by status.',
        tags,
        querystring: Type.Object({
          external_ref: Type.Optional(ExternalRefText("One end user's payouts; an unknown ref gives an empty page.")),
          status: Type.Optional(RequestText(128, { description: `Comma-separated: ${PAYOUT_STATUSES.join(', ')}.` })),
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(Payout), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const { query } = request;
      const filters = { externalRef: query.external_ref, statuses: parseList(query.status, 'status', oneOf(PAYOUT_STATUSES), PAYOUT_STATUSES.join(', ')) };
      const page = await payouts.list(db, tenantOf(request.caller!), filters, cursors.pageRequest(LIST, query));
      return cursors.envelope(LIST, page, (row) => presentPayout(row, trackingBase));
    },
  );

  app.get(
    '/payouts/:payout_id',
    {
      config: { scope: 'payouts:read', errors: ['resource_not_found'] },
      schema: {
        summary: 'Get a payout and its current status',
        description: 'Poll it to follow a payout: the status only moves forward (pending, processing, then completed or failed).',
        tags,
        params: Type.Object({ payout_id: PathId }),
        response: { 200: Payout, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentPayout(await payouts.get(db, tenantOf(request.caller!), request.params.payout_id), trackingBase),
  );
}
