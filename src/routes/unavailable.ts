import { DomainError } from '../domain/errors.js';
import type { App } from '../http/route-config.js';
import type { RouteContract } from '../http/route-config.js';
import { Type } from 'typebox';
import { errorResponses, PARTNER_ERRORS, PathId } from '../http/schemas.js';

/** Routes the contract registers ahead of their implementation: authenticated, then 501. */
const UNAVAILABLE: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; tag: string; contract?: RouteContract }[] = [
  { method: 'GET', url: '/webhooks', tag: 'webhooks' },
  { method: 'POST', url: '/webhooks', tag: 'webhooks' },
  { method: 'PATCH', url: '/webhooks/:webhook_id', tag: 'webhooks' },
  { method: 'DELETE', url: '/webhooks/:webhook_id', tag: 'webhooks' },
  { method: 'POST', url: '/webhooks/test', tag: 'webhooks' },
  { method: 'POST', url: '/conversions', tag: 'conversions' },
  { method: 'GET', url: '/conversions', tag: 'conversions' },
  { method: 'GET', url: '/conversions/:conversion_id', tag: 'conversions' },
  { method: 'POST', url: '/ramps/quote', tag: 'ramps' },
  { method: 'POST', url: '/ramps/sessions', tag: 'ramps', contract: { idempotent: true } },
  { method: 'GET', url: '/ramps/sessions/:session_id', tag: 'ramps' },
];

/** `/webhooks/:webhook_id` → a schema for its `webhook_id`, bounded like every other path id. */
const paramsOf = (url: string) => {
  const names = [...url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return names.length ? { params: Type.Object(Object.fromEntries(names.map((name) => [name, PathId]))) } : {};
};

export function unavailableRoutes(app: App): void {
  for (const route of UNAVAILABLE) {
    app.route({
      method: route.method,
      url: route.url,
      config: { ...route.contract, notYetAvailable: true },
      schema: {
        summary: 'Registered, not yet available',
        description: 'Registered by the contract ahead of its implementation: after authentication it always answers 501 `not_yet_available`.',
        tags: [route.tag],
        ...paramsOf(route.url),
        response: errorResponses(501, ...PARTNER_ERRORS),
      },
      handler: async () => {
        throw new DomainError('not_yet_available', `${route.method} ${route.url} is registered but not available yet.`);
      },
    });
  }
}
