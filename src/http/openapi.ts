import type { SwaggerOptions } from '@fastify/swagger';

/** The OpenAPI 3.1 document is generated from the route schemas; this adds what routes cannot say. */
export function openApiOptions(partnerPrefix: string, adminPrefix: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connect Payments API',
        version: 'v1',
        description:
          'Multi-tenant crypto payments: payment intents, deposit addresses, balances, ledger, payouts and events. ' +
          'Authenticate with `Authorization: Bearer sk_test_…` (sandbox) or `sk_live_…` (live). ' +
          `Operator routes under ${adminPrefix} take the operator token instead.`,
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… key' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'CONNECT_ADMIN_TOKEN' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const contract = route.config ?? {};
      const transformed: Record<string, unknown> = { ...schema };
      if (url.startsWith(adminPrefix)) transformed.security = [{ operatorToken: [] }];
      else if (url.startsWith(partnerPrefix)) {
        transformed.security = [{ apiKey: [] }];
        if (contract.scope) transformed['x-required-scope'] = contract.scope;
        if (contract.fundMoving) transformed['x-fund-moving'] = true;
        if (contract.idempotent) {
          transformed.headers = {
            type: 'object',
            required: ['Idempotency-Key'],
            properties: { 'Idempotency-Key': { type: 'string', minLength: 1, maxLength: 255 } },
          };
        }
      }
      return { schema: transformed as typeof schema, url };
    },
  };
}
