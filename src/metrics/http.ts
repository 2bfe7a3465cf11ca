import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, RouteOptions } from 'fastify';
import type { Metrics } from './metrics.js';

/** The route label of requests no route matched: their raw URLs would make one series per URL. */
const UNMATCHED_ROUTE = 'unmatched';

type Labels = { method: string; route: string; status: string };

/** One label set's series, bound once: prom-client then skips hashing the labels at every request. */
interface Series {
  count: { inc(): void };
  duration: { observe(seconds: number): void };
}

/**
 * The series of one route, made once per method and status: a request hands prom-client series that already
 * exist instead of building and hashing a label set.
 */
class RouteSeries {
  private readonly byMethod = new Map<string, Map<number, Series>>();

  constructor(
    private readonly route: string,
    private readonly metrics: Metrics,
  ) {}

  of(method: string, status: number): Series {
    let byStatus = this.byMethod.get(method);
    if (!byStatus) this.byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      const labels: Labels = { method, route: this.route, status: String(status) };
      byStatus.set(status, (series = { count: this.metrics.httpRequests.labels(labels), duration: this.metrics.httpDuration.labels(labels) }));
    }
    return series;
  }
}

const hooksOf = (hooks: RouteOptions['onResponse']) => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);

/**
 * Counts and times every answer by route pattern. Each route gets a hook of its own, made when the route is
 * registered, that knows its pattern: reading it per request (request.routeOptions) builds an object each
 * time. Must be installed before any route.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const observe = (route: RouteSeries, request: FastifyRequest, reply: FastifyReply) => {
    const series = route.of(request.method, reply.statusCode);
    series.count.inc();
    series.duration.observe(reply.elapsedTime / 1000);
  };
  app.addHook('onRoute', (route) => {
    const series = new RouteSeries(route.url, metrics);
    const hook: onResponseHookHandler = (request, reply, done) => {
      observe(series, request, reply);
      done();
    };
    route.onResponse = [...hooksOf(route.onResponse), hook];
  });
  const unmatched = new RouteSeries(UNMATCHED_ROUTE, metrics);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(unmatched, request, reply);
    done();
  });
}
