import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../domain/errors.js';

interface QuerySchema {
  properties?: Record<string, unknown>;
}

/**
 * An unknown query parameter gets what an unknown body field gets: 422 `parameter_unknown` naming it. A
 * filter the route does not have (`?status=completed` on a list without it) would otherwise be ignored
 * silently and answer unfiltered rows. A route without a querystring schema takes no parameters at all.
 */
export function refuseUnknownQueryParameters(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const names = Object.keys(request.query as Record<string, unknown>);
  // Most requests have no query: the route's options (an object Fastify builds at each read) are not needed then.
  if (names.length === 0) return done();
  const { config, schema } = request.routeOptions;
  if (config.notYetAvailable) return done();
  const known = (schema?.querystring as QuerySchema | undefined)?.properties ?? {};
  const unknown = names.find((name) => !Object.hasOwn(known, name));
  done(unknown === undefined ? undefined : new DomainError('parameter_unknown', `Unknown query parameter "${unknown}".`, unknown));
}
