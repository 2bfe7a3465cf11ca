import { Type } from 'typebox';
import { DomainError } from '../domain/errors.js';
import { isUuid } from '../domain/ids.js';
import type { App, AppContext } from '../http/context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { DateRangeQuery, oneOf, parseDateRange, parseList } from '../http/query.js';
import { presentTransaction, Transaction, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../http/resources/transaction.js';
import { errorResponses, PARTNER_ERRORS } from '../http/schemas.js';
import { tenantOf } from '../http/tenant.js';
import { findTransaction, listTransactions } from '../store/ledger.js';
import { profileFilter } from '../store/profiles.js';

const tags = ['transactions'];
const LIST = 'transactions';

export function transactionRoutes(app: App, { db, cursors }: AppContext): void {
  app.get(
    '/transactions',
    {
      config: { scope: 'transactions:read' },
      schema: {
        summary: 'List ledger transactions, newest first',
        tags,
        querystring: Type.Object({
          external_ref: Type.Optional(Type.String({ description: "One end user's rows; an unknown ref gives an empty page." })),
          type: Type.Optional(Type.String({ description: `Comma-separated: ${TRANSACTION_TYPES.join(', ')}.` })),
          status: Type.Optional(Type.String({ description: `Comma-separated: ${TRANSACTION_STATUSES.join(', ')}.` })),
          ...DateRangeQuery,
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(Transaction), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      const { query } = request;
      const filters = {
        types: parseList(query.type, 'type', oneOf(TRANSACTION_TYPES), TRANSACTION_TYPES.join(', ')),
        statuses: parseList(query.status, 'status', oneOf(TRANSACTION_STATUSES), TRANSACTION_STATUSES.join(', ')),
        ...parseDateRange(query),
      };
      const pageRequest = cursors.pageRequest(LIST, query);
      const profileId = await profileFilter(db, tenant, query.external_ref);
      if (profileId === null) return { has_more: false, data: [], cursor: null };
      const page = await listTransactions(db, tenant, { ...filters, profileId }, pageRequest);
      return cursors.envelope(LIST, page, presentTransaction);
    },
  );

  app.get(
    '/transactions/:transaction_id',
    {
      config: { scope: 'transactions:read' },
      schema: {
        summary: 'Get a ledger transaction',
        tags,
        params: Type.Object({ transaction_id: Type.String() }),
        response: { 200: Transaction, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const id = request.params.transaction_id;
      const row = isUuid(id) ? await findTransaction(db, tenantOf(request), id) : null;
      if (!row) throw new DomainError('resource_not_found', 'No transaction with that id.', 'transaction_id');
      return presentTransaction(row);
    },
  );
}
