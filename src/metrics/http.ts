import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, RouteOptions } from 'fastify';
import type { Metrics } from './metrics.js';

/** The route label of requests no route matched: their raw URLs would make one series per URL. */
const UNMATCHED_ROUTE = 'unmatched';

type Labels = { method: string; route: string; status: string };

/**
 * The label sets of one route, made once per method and status: a request hands prom-client an object
 * that already exists instead of building one.
 */
class RouteLabels {
  private readonly byMethod = new Map<string, Map<number, Labels>>();

  constructor(private readonly route: string) {}

  of(method: string, status: number): Labels {
    let byStatus = this.byMethod.get(method);
    if (!byStatus) this.byMethod.set(method, (byStatus = new Map()));
    let labels = byStatus.get(status);
    if (!labels) byStatus.set(status, (labels = { method, route: this.route, status: String(status) }));
    return labels;
  }
}

const hooksOf = (hooks: RouteOptions['onResponse']) => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * Counts and times every answer by route pattern. Each route gets a hook of its own, made when the route is
 * registered, that knows its pattern: reading it per request (request.routeOptions) builds an object each
 * time. Must be installed before any route.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const observe = (labels: RouteLabels, request: FastifyRequest, reply: FastifyReply) => {
    const set = labels.of(request.method, reply.statusCode);
    metrics.httpRequests.inc(set);
    metrics.httpDuration.observe(set, reply.elapsedTime / 1000);
  };
  app.addHook('onRoute', (route) => {
    const labels = new RouteLabels(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(labels, request, reply);
      done();
    };
    route.onResponse = [...hooksOf(route.onResponse), hook];
  });
  const unmatched = new RouteLabels(UNMATCHED_ROUTE);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(unmatched, request, reply);
    done();
  });
}
