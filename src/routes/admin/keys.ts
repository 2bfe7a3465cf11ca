import { Type } from 'typebox';
import { keyList } from '../../use-cases/operator.js';
import type { AppContext, App } from '../../http/context.js';
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
    { schema: { summary: 'Get an API key', tags, params: IdParams, response: { 200: ApiKey, ...errorResponses(401, 404) } } },
    async (request) => presentApiKey(await operator.getApiKey(request.params.id)),
  );

  app.post(
    '/keys/:id/rotate',
    {
      schema: {
        summary: 'Replace a key: the old one stops working at once',
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
      schema: { summary: 'Revoke a key', tags, params: IdParams, response: { 200: ApiKey, ...errorResponses(401, 404) } },
    },
    async (request) => presentApiKey(await operator.revokeApiKey(request.params.id)),
  );
}
