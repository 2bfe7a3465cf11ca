import { Type } from 'typebox';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { ListEnvelope, PageQuery } from '../http/pagination.js';
import { Address, CreateAddressBody, presentAddress } from '../http/resources/address.js';
import { CodeText, errorResponses, ExternalRefText, PARTNER_ERRORS, PathId } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';

const tags = ['addresses'];
const LIST = 'addresses';

export function addressRoutes(app: App, { db, cursors, idempotency, addresses }: AppContext): void {
  app.post(
    '/addresses',
    {
      config: { scope: 'addresses:write', fundMoving: true, idempotent: true, errors: ['catalog_invalid', 'provider_unavailable'] },
      schema: {
        summary: 'Mint a standalone deposit address',
        description: 'Without external_ref: a tenant-treasury address crediting the organization. With it: a per-user address.',
        tags,
        body: CreateAddressBody,
        response: { 201: Address, ...errorResponses(400, 409, 422, 503, ...PARTNER_ERRORS) },
      },
    },
    async (request, reply) =>
      idempotency.send(reply, await addresses.create(request.caller!, request.body, idempotency.once(request, reply, (row) => ({ status: 201, body: presentAddress(row) })))),
  );

  app.get(
    '/addresses',
    {
      config: { scope: 'addresses:read' },
      schema: {
        summary: 'List standalone deposit addresses, newest first',
        description: "Intent addresses are listed in their intent's `addresses`.",
        tags,
        querystring: Type.Object({
          external_ref: Type.Optional(ExternalRefText("One end user's addresses; an unknown ref gives an empty page.")),
          asset: Type.Optional(CodeText('Asset code.')),
          network: Type.Optional(CodeText('Network code.')),
          ...PageQuery,
        }),
        response: { 200: ListEnvelope(Address), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const page = await addresses.list(db, tenantOf(request.caller!), request.query, cursors.pageRequest(LIST, request.query));
      return cursors.envelope(LIST, page, presentAddress);
    },
  );

  app.get(
    '/addresses/:address_id',
    {
      config: { scope: 'addresses:read', errors: ['resource_not_found'] },
      schema: {
        summary: 'Get a standalone deposit address',
        description: 'An address minted with POST /addresses. Another tenant\'s id answers 404, as a missing one does.',
        tags,
        params: Type.Object({ address_id: PathId }),
        response: { 200: Address, ...errorResponses(404, ...PARTNER_ERRORS) },
      },
    },
    async (request) => presentAddress(await addresses.get(db, tenantOf(request.caller!), request.params.address_id)),
  );
}
