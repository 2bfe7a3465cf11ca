import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
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
        description: 'A tenant: `pending_verification` unless `status` says otherwise. Its live keys work once it is `active`.',
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
        description: 'Every organization of the deployment, in the list envelope.',
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
    { schema: { summary: 'Get an organization', description: 'Name, status and settings of one organization.', tags, params: IdParams, response: { 200: Organization, ...errorResponses(401, 404) } } },
    async (request) => presentOrganization(await operator.getOrganization(request.params.id)),
  );

  app.patch(
    '/organizations/:id',
    {
      schema: {
        summary: 'Change name, status or settings',
        description: 'What the body leaves out is kept; `settings` are merged over the stored ones, and `disabled_pairs` replaces the list.',
        tags,
        params: IdParams,
        body: UpdateOrganizationBody,
        response: { 200: Organization, ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) => presentOrganization(await operator.updateOrganization(request.params.id, request.body)),
  );
}
