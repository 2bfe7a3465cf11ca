import { Type } from 'typebox';
import { keyList } from '../../use-cases/operator.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { ListEnvelope, PageQuery } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import { ApiKey, CreateApiKeyBody, IdParams, presentApiKey } from './schemas.js';

const tags = ['operator'];

export function adminKeyRoutes(app: App, { operator, cursors }: AppContext): void {
  app.post(
    '/organizations/:id/keys',
    {
      schema: {
        summary: 'Create an API key (the secret is shown in this response only)',
        description: 'The key (`sk_test_…` or `sk_live_…`) is in `key`, this once: only its hash is stored.',
        tags,
        params: IdParams,
        body: CreateApiKeyBody,
        response: { 201: ApiKey, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(presentApiKey(await operator.createApiKey(request.params.id, request.body))),
  );

  app.get(
    '/organizations/:id/keys',
    {
      schema: {
        summary: "List an organization's keys, newest first (never their secrets)",
        description: 'Every key of the organization, revoked ones included, without secrets.',
        tags,
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(ApiKey), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const list = keyList(request.params.id);
      const page = await operator.listApiKeys(request.params.id, cursors.pageRequest(list, request.query));
      return cursors.envelope(list, page, presentApiKey);
    },
  );

  app.get(
    '/keys/:id',
    { schema: { summary: 'Get an API key', description: 'Mode, scopes, limit, expiry and revocation of one key, never its secret.', tags, params: IdParams, response: { 200: ApiKey, ...errorResponses(401, 404) } } },
    async (request) => presentApiKey(await operator.getApiKey(request.params.id)),
  );

  app.post(
    '/keys/:id/rotate',
    {
      schema: {
        summary: 'Replace a key: the old one stops working at once',
        description: 'A new key with the same mode, scopes, rate limit and expiry; the old one is revoked in the same transaction. The new secret is shown in this response only.',
        tags,
        params: IdParams,
        response: { 201: ApiKey, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(presentApiKey(await operator.rotateApiKey(request.params.id))),
  );

  app.delete(
    '/keys/:id',
    {
      schema: { summary: 'Revoke a key', description: 'The key stops working at once, on every instance.', tags, params: IdParams, response: { 200: ApiKey, ...errorResponses(401, 404) } },
    },
    async (request) => presentApiKey(await operator.revokeApiKey(request.params.id)),
  );
}
