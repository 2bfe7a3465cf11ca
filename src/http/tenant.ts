import type { FastifyRequest } from 'fastify';
import type { Tenant } from '../store/tenancy.js';

/** The organization and mode the authenticated key acts for: every partner query is scoped to both. */
export function tenantOf(request: FastifyRequest): Tenant {
  const caller = request.caller!;
  return { organizationId: caller.organizationId, mode: caller.mode };
}
