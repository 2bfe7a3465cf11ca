import { Type } from 'typebox';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { errorResponses } from '../../http/schemas.js';

export function adminMetricsRoutes(app: App, { metrics }: AppContext): void {
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Metrics in the Prometheus text format',
        description: 'Requests, database, idempotency, rate limits, webhooks and deposits of this process; see docs/metrics.md.',
        tags: ['operator'],
        response: {
          200: { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: Type.String() } } },
          ...errorResponses(401, 429),
        },
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.scrape()),
  );
}
