import { Type } from 'typebox';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../domain/transactions.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { DateRangeQuery, oneOf, parseDateRange, parseList } from '../http/query.js';
import { presentTransaction, Transaction } from '../http/resources/transaction.js';
import { errorResponses, ExternalRefText, PARTNER_ERRORS, PathId, RequestText } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['transactions'];
const LIST = 'transactions';

export function transactionRoutes(app: App, { db, cursors, transactions }: AppContext): void {
  app.get(
    '/transactions',
    {
      config: { scope: 'transactions:read' },
      schema: {
        summary: 'List ledger transactions, newest first',
        description: 'The partner-visible ledger rows (deposits, payouts), filtered by end user, type, status and an inclusive `created_at` range; amounts are decimal strings.',
        tags,
        querystring: Type.Object({
          external_ref: Type.Optional(ExternalRefText("One end user's rows; an unknown ref gives an empty page.")),
          type: Type.Optional(RequestText(512, { description: `Comma-separated: ${TRANSACTION_TYPES.join(', ')}.` })),
          status: Type.Optional(RequestText(512, { description: `Comma-separated: ${TRANSACTION_STATUSES.join(', ')}.` })),
          ...DateRangeQuery,
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(Transaction), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const { query } = request;
      const filters = {
        externalRef: query.external_ref,
        types: parseList(query.type, 'type', oneOf(TRANSACTION_TYPES), TRANSACTION_TYPES.join(', ')),
        statuses: parseList(query.status, 'status', oneOf(TRANSACTION_STATUSES), TRANSACTION_STATUSES.join(', ')),
        ...parseDateRange(query),
      };
      const page = await transactions.list(db, tenantOf(request.caller!), filters, cursors.pageRequest(LIST, query));
      return cursors.envelope(LIST, page, presentTransaction);
    },
  );

  app.get(
    '/transactions/:transaction_id',
    {
      config: { scope: 'transactions:read', errors: ['resource_not_found'] },
      schema: {
        summary: 'Get a ledger transaction',
        description: 'One ledger row. Another tenant\'s id answers 404, as a missing one does.',
        tags,
        params: Type.Object({ transaction_id: PathId }),
        response: { 200: Transaction, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentTransaction(await transactions.get(db, tenantOf(request.caller!), request.params.transaction_id)),
  );
}
