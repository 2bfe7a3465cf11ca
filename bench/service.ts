import { randomUUID } from 'node:crypto';
import type { Fixture } from './scenarios.js';

/** Creates, through the operator API, an active organization and a test key whose rate limit never binds. */
export async function createPartnerKey(baseUrl: string, adminToken: string): Promise<string> {
  const organization = await post<{ id: string }>(`${baseUrl}/admin/v1/organizations`, adminToken, {
    name: 'Benchmark',
    status: 'active',
  });
  // 100000 rps is the highest limit the API accepts; the load generator stays far below it.
  const key = await post<{ key: string }>(`${baseUrl}/admin/v1/organizations/${organization.id}/keys`, adminToken, {
    mode: 'test',
    rate_limit_rps: 100_000,
  });
  return key.key;
}

/**
 * What the money-in scenarios read: one intent, with a few deposits so that GET /events has rows. Its amount
 * is far above what a run can deposit at 0.01 a time, so it stays pending.
 */
export async function createFixture(baseUrl: string, partnerKey: string): Promise<Fixture> {
  const intentIds: string[] = [];
  for (let i = 0; i < 64; i++) {
    const intent = await post<{ id: string }>(
      `${baseUrl}/connect/v1/payment-intents`,
      partnerKey,
      { amount: '100000000', currencies: ['USDC'] },
      { 'idempotency-key': randomUUID() },
    );
    intentIds.push(intent.id);
  }
  for (let i = 0; i < 60; i++) {
    await post(`${baseUrl}/connect/v1/test/payment-intents/${intentIds[0]}/simulate-deposit`, partnerKey, { amount: '0.01' });
  }
  return { intent_id: intentIds[0]!, intent_ids: intentIds };
}

async function post<T>(url: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
