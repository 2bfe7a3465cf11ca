import { Type } from 'typebox';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import { presentTenantBalance, presentUserBalance, TenantBalance, UserBalance } from '../http/resources/balance.js';
import { errorResponses, ExternalRefText, PARTNER_ERRORS } from '../http/schemas.js';
import { tenantOf } from '../domain/tenancy.js';
import { externalRef } from '../domain/identifiers.js';

const tags = ['balances'];

export function balanceRoutes(app: App, { db, balances }: AppContext): void {
  app.get(
    '/balances',
    {
      config: { scope: 'balances:read' },
      schema: {
        summary: 'Balances with fiat valuation: one end user, or the whole tenant',
        description:
          'With external_ref: that end user’s balances (an unknown ref holds nothing). Without: the tenant-wide aggregate of the ' +
          'organization and every profile, with profiles_count. A fiat is absent from totals when any line could not be valued in it.',
        tags,
        querystring: Type.Object({ external_ref: Type.Optional(ExternalRefText('The end user whose balances to show.')) }),
        response: { 200: Type.Union([UserBalance, TenantBalance]), ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const tenant = tenantOf(request.caller!);
      const ref = request.query.external_ref === undefined ? undefined : externalRef(request.query.external_ref);
      return ref === undefined ? presentTenantBalance(await balances.ofTenant(db, tenant)) : presentUserBalance(ref, await balances.ofUser(db, tenant, ref));
    },
  );

  app.get(
    '/balances/:external_ref',
    {
      config: { scope: 'balances:read' },
      schema: {
        summary: "One end user's balances with fiat valuation",
        description: 'The same per-user answer as GET /balances?external_ref=…; an `external_ref` never seen answers an empty list.',
        tags,
        params: Type.Object({ external_ref: ExternalRefText('The end user.') }),
        response: { 200: UserBalance, ...errorResponses(400, ...PARTNER_ERRORS) },
      },
    },
    async (request) => {
      const ref = externalRef(request.params.external_ref);
      return presentUserBalance(ref, await balances.ofUser(db, tenantOf(request.caller!), ref));
    },
  );
}
