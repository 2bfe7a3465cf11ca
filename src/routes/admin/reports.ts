import { Type } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { reportRequest, ReportQuery, sendReport, TransactionReport } from '../../http/resources/report.js';
import { errorResponses, PathId } from '../../http/schemas.js';

/** The partner's statement, asked by the operator for any organization and mode (`connect-payments reports transactions`). */
export function adminReportRoutes(app: App, { db, operator, reports }: AppContext): void {
  app.get(
    '/organizations/:id/reports/transactions',
    {
      schema: {
        summary: "An organization's statement of ledger movements, as CSV or JSON",
        description:
          'What GET /connect/v1/reports/transactions answers a key of this organization in `mode`: movements in [from, to) between ' +
          'opening and closing balances, valued at the prices stored with them; streamed. See docs/reports.md.',
        tags: ['operator'],
        params: Type.Object({ id: PathId }),
        querystring: Type.Object({ mode: Type.Enum(['test', 'live'], { description: 'test (sandbox) or live' }), ...ReportQuery.properties }),
        response: {
          200: {
            description: 'The statement: a CSV download (text/csv) or the `report` object (application/json).',
            content: { 'application/json': { schema: TransactionReport }, 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { mode, ...query } = request.query;
      const organization = await operator.getOrganization(request.params.id);
      const asked = reportRequest(query, request.headers.accept);
      return sendReport(reply, await reports.open(db, { organizationId: organization.id, mode }, asked), asked.format);
    },
  );
}
