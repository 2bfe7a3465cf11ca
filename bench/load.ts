import { performance } from 'node:perf_hooks';
import autocannon, { type Request, type RequestParams, type Result } from 'autocannon';
import type { Fixture, Scenario } from './scenarios.js';

/**
 * The scenario as autocannon sends it, with the target's headers (its API key) added: one request, or two
 * chained ones (`then`), with a tally of the chains completed. Make a new one for every load: the tally counts
 * from zero.
 */
export interface Load {
  requests: Request[];
  /** Set for a chained scenario. */
  chains: ChainTally | null;
}

export interface ChainTally {
  /** Chains whose second request answered 2xx. */
  completed: number;
  /** Per completed chain: from sending the first request to the second's answer. */
  latenciesMs: number[];
  /** Answers by status code, per request of the chain. */
  answers: [Record<string, number>, Record<string, number>];
}

/** What a chain carries from one request to the next, in autocannon's per-connection context. */
interface ChainContext {
  startedAt?: number;
  answer?: string;
}

export function toLoad(scenario: Scenario, headers: Record<string, string>, fixture: Fixture): Load {
  const { perRequest, then } = scenario;
  const first: Request = {
    method: scenario.method,
    path: scenario.path,
    headers: { ...headers, ...scenario.headers, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
    ...(scenario.body ? { body: scenario.body } : {}),
    ...(perRequest ? { setupRequest: (request: RequestParams) => perRequest(request, fixture) } : {}),
  };
  if (!then) return { requests: [first], chains: null };

  const chains: ChainTally = { completed: 0, latenciesMs: [], answers: [{}, {}] };
  const count = (answers: Record<string, number>, status: number) => void (answers[status] = (answers[status] ?? 0) + 1);
  // autocannon resets the context before each first request and restarts the chain when the second request's
  // setupRequest returns null (here: the first did not answer 2xx).
  first.setupRequest = (request, context) => {
    (context as ChainContext).startedAt = performance.now();
    return perRequest ? perRequest(request, fixture) : request;
  };
  first.onResponse = (status, body, context) => {
    count(chains.answers[0], status);
    if (status >= 200 && status < 300) (context as ChainContext).answer = body;
  };
  const second: Request = {
    method: then.method,
    path: then.path,
    headers: { ...headers, ...scenario.headers, 'content-type': 'application/json' },
    setupRequest: (request, context) => {
      const { answer } = context as ChainContext;
      if (answer === undefined) return null;
      const built = { ...request, body: then.body(JSON.parse(answer)) };
      return then.perRequest ? then.perRequest(built, fixture) : built;
    },
    onResponse: (status, _body, context) => {
      count(chains.answers[1], status);
      const { startedAt } = context as ChainContext;
      if (status >= 200 && status < 300 && startedAt !== undefined) {
        chains.completed++;
        chains.latenciesMs.push(performance.now() - startedAt);
      }
    },
  };
  return { requests: [first, second], chains };
}

/**
 * Sends the scenario once first (each request of a chain, the second built from the first's answer, as under
 * load): a scenario that answers 401 or 404 would otherwise be measured at full speed and look fast.
 */
export async function checkAnswers(baseUrl: string, { requests }: Load): Promise<void> {
  const context: Record<string, unknown> = {};
  for (const request of requests) {
    const sent = request.setupRequest ? request.setupRequest(request, context) : request;
    if (!sent) throw new Error(`${request.method} ${request.path}: the chain could not go on (the request before it failed)`);
    const response = await fetch(baseUrl + sent.path, {
      method: sent.method,
      ...(sent.headers ? { headers: sent.headers } : {}),
      ...(sent.body ? { body: sent.body } : {}),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${sent.method} ${sent.path} answered ${response.status}: ${text.slice(0, 500)}`);
    request.onResponse?.(response.status, text, context, Object.fromEntries(response.headers));
  }
}

export function generateLoad(baseUrl: string, { requests }: Load, connections: number, seconds: number): Promise<Result> {
  return Promise.resolve(autocannon({ url: baseUrl, connections, duration: seconds, requests }));
}

/** Mean and percentiles of the chains' latencies, in the units autocannon reports (whole ms for percentiles). */
export function chainLatency(latenciesMs: readonly number[]): { average: number; p50: number; p99: number } {
  if (latenciesMs.length === 0) return { average: 0, p50: 0, p99: 0 };
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  const average = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
  return { average: Math.round(average * 100) / 100, p50: at(0.5), p99: at(0.99) };
}
