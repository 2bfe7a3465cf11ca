import type { FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/page-size.js';

/** Rows of a list page that cost one request of the key's budget. */
export const ROWS_PER_POINT = 25;

/**
 * How many of a key's `rate_limit_rps` points a request costs: one, or for a list one per ROWS_PER_POINT rows
 * it asks for, so a 200-row page (~350 KB of intents, tens of ms of work) costs 8. Read before validation:
 * a malformed `limit` costs the default page and is refused 400 later. Never more than the key's whole
 * budget, which a key with a very low rps would otherwise never have. A route may declare its
 * cost (a statement's, STATEMENT_COST), capped the same way.
 */
export function requestCost(request: FastifyRequest, rps: number): number {
  const declared = request.routeOptions.config.cost;
  if (declared !== undefined) return Math.min(declared, rps);
  const query = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  if (!query?.properties || !('limit' in query.properties)) return 1;
  const raw = (request.query as { limit?: unknown }).limit;
  const asked = typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : DEFAULT_PAGE_SIZE;
  const rows = Math.min(Math.max(asked, 1), MAX_PAGE_SIZE);
  return Math.min(Math.ceil(rows / ROWS_PER_POINT), rps);
}
