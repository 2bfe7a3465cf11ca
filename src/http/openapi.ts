import type { SwaggerOptions } from '@fastify/swagger';

/** Shared by both documents: schemas keep their own $id as component names. */
const refResolver = {
  buildLocalReference: (json: Record<string, unknown>, _baseUri: unknown, _fragment: unknown, i: number) => String(json.$id ?? `def-${i}`),
};

/**
 * The partner API's OpenAPI 3.1 document, generated from the route schemas; this adds what routes cannot
 * say (security, required scope, fund-moving, the Idempotency-Key header). Partner routes only: the operator
 * API has a document of its own.
 */
export function partnerOpenApi(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connect Payments API',
        version: 'v1',
        description:
          'Multi-tenant crypto payments: payment intents, deposit addresses, balances, ledger, payouts and events. ' +
          'Authenticate with `Authorization: Bearer sk_test_…` (sandbox) or `sk_live_…` (live).',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… key' } } },
    },
    refResolver,
    transform: ({ schema, url, route }) => {
      const contract = route.config ?? {};
      const transformed: Record<string, unknown> = { ...schema, security: [{ apiKey: [] }] };
      if (contract.scope) transformed['x-required-scope'] = contract.scope;
      if (contract.fundMoving) transformed['x-fund-moving'] = true;
      if (contract.idempotent) {
        transformed.headers = {
          type: 'object',
          required: ['Idempotency-Key'],
          properties: { 'Idempotency-Key': { type: 'string', minLength: 1, maxLength: 255 } },
        };
      }
      return { schema: transformed as typeof schema, url };
    },
  };
}

/** The operator API's document: organizations and keys, behind the operator token. */
export function adminOpenApi(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connect Payments operator API',
        version: 'v1',
        description: 'For the operator of a deployment: organizations and their API keys. Authenticate with `Authorization: Bearer <CONNECT_ADMIN_TOKEN>`.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer', description: 'CONNECT_ADMIN_TOKEN' } } },
    },
    refResolver,
    transform: ({ schema, url }) => ({ schema: { ...schema, security: [{ operatorToken: [] }] } as typeof schema, url }),
  };
}
