import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';

interface QuerySchema {
  properties?: Record<string, unknown>;
}

/**
 * An unknown query parameter gets what an unknown body field gets: 422 `parameter_unknown` naming it. A
 * filter the route does not have (`?status=completed` on a list without it) would otherwise be ignored
 * silently and answer unfiltered rows. A route without a querystring schema takes no parameters at all.
 */
export async function refuseUnknownQueryParameters(request: FastifyRequest): Promise<void> {
  if (request.routeOptions.config.notYetAvailable) return;
  const known = (request.routeOptions.schema?.querystring as QuerySchema | undefined)?.properties ?? {};
  const unknown = Object.keys(request.query as Record<string, unknown>).find((name) => !Object.hasOwn(known, name));
  if (unknown !== undefined) {
    throw new DomainError('parameter_unknown', `Unknown query parameter "${unknown}".`, unknown);
  }
}
