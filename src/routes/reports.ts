import { Type } from 'typebox';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { reportRequest, ReportQuery, sendReport, TransactionReport } from '../http/resources/report.js';
import { errorResponses, PARTNER_ERRORS } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

/**
 * A statement reads up to a year of movements: it costs as much of a key's budget as 625 list rows, so a default
 * sandbox key (25 rps) asks for one a second and a default live key (100 rps) for four (docs/reports.md).
 */
const STATEMENT_COST = 25;

export function reportRoutes(app: App, { db, reports }: AppContext): void {
  app.get(
    '/reports/transactions',
    {
      config: { scope: 'transactions:read', cost: STATEMENT_COST },
      schema: {
        summary: 'A statement of ledger movements for a date range, as CSV or JSON',
        description:
          'Every movement of the organization (with every end user’s profile) or of one `external_ref` in [from, to), oldest first: type, ' +
          'status, asset, network, signed amount, fee, counterparty, tx hash, intent/payout/refund ids, metadata, and its value in each fiat ' +
          'at the price stored when it happened; between opening and closing balances (available + reserved) per asset and network that ' +
          'add up with the movements. Streamed; `format` or the Accept header (text/csv) chooses the format. See docs/reports.md.',
        tags: ['reports'],
        querystring: ReportQuery,
        response: {
          200: {
            description: 'The statement: a CSV download (text/csv) or the `report` object (application/json).',
            content: { 'application/json': { schema: TransactionReport }, 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(400, ...PARTNER_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const asked = reportRequest(request.query, request.headers.accept);
      return sendReport(reply, await reports.open(db, tenantOf(request.caller!), asked), asked.format);
    },
  );
}
