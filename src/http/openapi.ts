import type { FastifyDynamicSwaggerOptions, SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import type { RouteContract } from './route-config.js';
import { completeDocument, loadRecordedExamples, type RecordedExamples } from './openapi-document.js';
import { errorCodesOf } from './openapi-errors.js';

/** Shared by both documents: schemas keep their own $id as component names. */
const refResolver = {
  buildLocalReference: (json: Record<string, unknown>, _baseUri: unknown, _fragment: unknown, i: number) => String(json.$id ?? `def-${i}`),
};

const examples: RecordedExamples = loadRecordedExamples();

/** What every operation of an API gets from its route's contract: the error codes, an optional body. */
function withContract(api: 'partner' | 'admin', extra: (contract: RouteContract) => Record<string, unknown>): SwaggerTransform {
  return ({ schema, url, route }) => {
    const contract: RouteContract = route.config ?? {};
    const transformed: Record<string, unknown> = {
      ...schema,
      ...extra(contract),
      'x-error-codes': errorCodesOf(api, contract, schema),
      ...(contract.optionalBody ? { 'x-optional-body': true } : {}),
    };
    return { schema: transformed as typeof schema, url };
  };
}

const transformObject: SwaggerTransformObject = (documentObject) =>
  completeDocument('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject, examples);

/**
 * The partner API's OpenAPI 3.1 document, generated from the route schemas; this adds what routes cannot
 * say (security, required scope, fund-moving, the Idempotency-Key header, error codes, recorded examples).
 * Partner routes only: the operator API has a document of its own.
 */
export function partnerOpenApi(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connect Payments API',
        version: 'v1',
        description:
          'Multi-tenant crypto payments: payment intents, deposit addresses, balances, ledger, payouts and events. ' +
          'Authenticate with `Authorization: Bearer sk_test_…` (sandbox) or `sk_live_…` (live). Errors share one envelope; ' +
          'match on `error.code`. The examples were recorded from real sandbox calls (scripts/openapi-examples.ts).',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… key' } } },
    },
    refResolver,
    transform: withContract('partner', (contract) => ({
      security: [{ apiKey: [] }],
      ...(contract.scope ? { 'x-required-scope': contract.scope } : {}),
      ...(contract.fundMoving ? { 'x-fund-moving': true } : {}),
      ...(contract.idempotent
        ? {
            headers: {
              type: 'object',
              required: ['Idempotency-Key'],
              properties: { 'Idempotency-Key': { type: 'string', minLength: 1, maxLength: 255, description: 'A fresh UUID per new operation.' } },
            },
          }
        : {}),
    })),
    transformObject,
  };
}

/** The operator API's document: organizations, keys, webhooks, the ledger and live payouts, behind the operator token. */
export function adminOpenApi(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Connect Payments operator API',
        version: 'v1',
        description:
          'For the operator of a deployment: organizations, their API keys and webhook endpoints, the ledger check, stuck live payouts. ' +
          'Authenticate with `Authorization: Bearer <operator token>` (CONNECT_ADMIN_TOKEN, or the token kept in the data directory).',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer', description: 'The operator token' } } },
    },
    refResolver,
    transform: withContract('admin', () => ({ security: [{ operatorToken: [] }] })),
    transformObject,
  };
}
