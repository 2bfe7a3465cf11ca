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

async function post<T>(url: string, token: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
