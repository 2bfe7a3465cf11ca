import autocannon, { type Request, type RequestParams, type Result } from 'autocannon';
import type { Fixture, Scenario } from './scenarios.js';

/** The scenario as autocannon sends it, with the target's headers (its API key) added. */
export function toRequest(scenario: Scenario, headers: Record<string, string>, fixture: Fixture): Request {
  const { perRequest } = scenario;
  return {
    method: scenario.method,
    path: scenario.path,
    headers: { ...headers, ...scenario.headers, ...(scenario.body ? { 'content-type': 'application/json' } : {}) },
    ...(scenario.body ? { body: scenario.body } : {}),
    ...(perRequest ? { setupRequest: (request: RequestParams) => perRequest(request, fixture) } : {}),
  };
}

/**
 * Sends one request first: a scenario that answers 401 or 404 would otherwise be measured at full speed
 * and look fast.
 */
export async function checkAnswers(baseUrl: string, request: Request): Promise<void> {
  const sent = request.setupRequest ? request.setupRequest(request, {}) : request;
  const response = await fetch(baseUrl + sent.path, {
    method: sent.method,
    ...(sent.headers ? { headers: sent.headers } : {}),
    ...(sent.body ? { body: sent.body } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${sent.method} ${sent.path} answered ${response.status}: ${text.slice(0, 500)}`);
}

export function generateLoad(baseUrl: string, request: Request, connections: number, seconds: number): Promise<Result> {
  return Promise.resolve(autocannon({ url: baseUrl, connections, duration: seconds, requests: [request] }));
}
