import type { AppContext, App } from '../../http/context.js';
import { ListEnvelope, PageQuery } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import { Type } from 'typebox';
import { ORGANIZATION_LIST } from '../../use-cases/operator.js';
import { CreateOrganizationBody, IdParams, Organization, presentOrganization, UpdateOrganizationBody } from './schemas.js';

const tags = ['operator'];

export function adminOrganizationRoutes(app: App, { operator, cursors }: AppContext): void {
  app.post(
    '/organizations',
    {
      schema: {
        summary: 'Create an organization',
        tags,
        body: CreateOrganizationBody,
        response: { 201: Organization, ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(presentOrganization(await operator.createOrganization(request.body))),
  );

  app.get(
    '/organizations',
    {
      schema: {
        summary: 'List organizations, newest first',
        tags,
        querystring: Type.Object(PageQuery),
        response: { 200: ListEnvelope(Organization), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const page = await operator.listOrganizations(cursors.pageRequest(ORGANIZATION_LIST, request.query));
      return cursors.envelope(ORGANIZATION_LIST, page, presentOrganization);
    },
  );

  app.get(
    '/organizations/:id',
    { schema: { summary: 'Get an organization', tags, params: IdParams, response: { 200: Organization, ...errorResponses(401, 404) } } },
    async (request) => presentOrganization(await operator.getOrganization(request.params.id)),
  );

  app.patch(
    '/organizations/:id',
    {
      schema: {
        summary: 'Change name, status or settings',
        tags,
        params: IdParams,
        body: UpdateOrganizationBody,
        response: { 200: Organization, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) => presentOrganization(await operator.updateOrganization(request.params.id, request.body)),
  );
}
