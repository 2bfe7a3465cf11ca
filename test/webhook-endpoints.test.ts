import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';
import { createAddress, createIntent, createTenant, simulate, simulateAddress, walkPages } from './support/partner.js';
import {
  deliveriesPath,
  deliveryPage,
  deliveryRecords,
  endpointPath,
  eventRecords,
  fakeResolver,
  putEndpoint,
  newEndpoint,
  SANDBOX_URL,
  SECRET_PATTERN,
  settleLatest,
  type DeliveryObject,
  withoutSecret,
  type EndpointObject,
} from './support/webhook-admin.js';

let t: TestApp;
const dns = fakeResolver();
beforeAll(async () => {
  // Live endpoints are checked against what their hostname resolves to; the tests decide the answers.
  t = await startTestApp({}, undefined, { resolve: dns });
});
afterAll(() => t.close());

const UNKNOWN_ORG = '00000000-0000-4000-8000-000000000000';
const PUBLIC_IP = '93.184.216.34';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const newOrg = async (): Promise<string> => {
  const res = await t.admin('POST', '/organizations', { name: 'Hooks Co', status: 'active' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
};

/** The endpoint's secrets as stored (the API never shows the previous one). */
async function storedSecrets(organizationId: string, mode: string) {
  const [row] = await t.db.query<{ secret: string; previous_secret: string | null }>(
    'SELECT secret, previous_secret FROM webhook_endpoints WHERE organization_id = $1 AND mode = $2',
    [organizationId, mode],
  );
  expect(row).toBeDefined();
  return row!;
}

/** A request that must be refused with `status` and `code` naming `param`. */
async function refused(method: 'PUT' | 'POST' | 'GET', path: string, body: unknown, status: number, code: string, param: string | null) {
  const res = await t.admin(method, path, body);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error).toMatchObject({ code, param });
  return res.json().error as { code: string; message: string; param: string | null };
}

const secondsFromNow = (iso: string | null) => (Date.parse(iso ?? 'invalid') - Date.now()) / 1000;

describe('PUT /organizations/{id}/webhooks/{mode}', () => {
  it('creating an endpoint answers 201 with the endpoint and its whsec_ secret', async () => {
    const org = await newOrg();
    const res = await t.admin('PUT', endpointPath(org, 'test'), { url: SANDBOX_URL, enabled: true });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual(newEndpoint(org, 'test', SANDBOX_URL));
    expect((await storedSecrets(org, 'test')).secret).toBe(res.json().secret);
  });

  it('enabled defaults to true', async () => {
    const org = await newOrg();
    expect((await putEndpoint(t, org, 'test', { url: SANDBOX_URL })).enabled).toBe(true);
  });

  it('an endpoint can be created disabled (201, with its secret)', async () => {
    const org = await newOrg();
    const created = await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false });
    expect(created).toMatchObject({ enabled: false, secret: expect.stringMatching(SECRET_PATTERN) });
  });

  it('changing an existing endpoint answers 200 without the secret, and the secret stays the same', async () => {
    const org = await newOrg();
    const created = await putEndpoint(t, org, 'test');
    const res = await t.admin('PUT', endpointPath(org, 'test'), { url: 'http://127.0.0.1:8080/other', enabled: false });
    expect(res.statusCode).toBe(200);
    const updated = res.json() as EndpointObject;
    expect(updated).not.toHaveProperty('secret');
    expect(updated).toMatchObject({ url: 'http://127.0.0.1:8080/other', enabled: false, created_at: created.created_at });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.updated_at));
    expect((await storedSecrets(org, 'test')).secret).toBe(created.secret);
  });

  it('PUT replaces the whole endpoint: enabled omitted on a disabled endpoint enables it again', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false });
    expect(await putEndpoint(t, org, 'test', { url: SANDBOX_URL }, 200)).toMatchObject({ enabled: true });
  });

  it('the two modes have separate endpoints, each with its own secret', async () => {
    dns.answers.set('public-modes.example', [PUBLIC_IP]);
    const org = await newOrg();
    const sandbox = await putEndpoint(t, org, 'test');
    const live = await putEndpoint(t, org, 'live', { url: 'https://public-modes.example/hooks' });
    expect(live).toMatchObject({ mode: 'live', url: 'https://public-modes.example/hooks' });
    expect(live.secret).not.toBe(sandbox.secret);
  });

  it('sandbox endpoints may use http, localhost and private addresses', async () => {
    const org = await newOrg();
    for (const url of ['http://localhost:3000/hooks', 'http://127.0.0.1:8080/hooks', 'http://10.0.0.5/hooks', 'https://localhost/hooks']) {
      const res = await t.admin('PUT', endpointPath(org, 'test'), { url });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      expect(res.json().url).toBe(url);
    }
  });

  it('a live endpoint whose hostname resolves to a public address is accepted', async () => {
    dns.answers.set('partner.example', [PUBLIC_IP]);
    const org = await newOrg();
    expect(await putEndpoint(t, org, 'live', { url: 'https://partner.example/hooks' })).toMatchObject({
      mode: 'live',
      url: 'https://partner.example/hooks',
      enabled: true,
    });
  });

  it('a live endpoint whose hostname resolves to a private address is refused: 400 naming url', async () => {
    dns.answers.set('partner.example', ['10.0.0.5']);
    const org = await newOrg();
    const error = await refused('PUT', endpointPath(org, 'live'), { url: 'https://partner.example/hooks' }, 400, 'invalid_request', 'url');
    expect(error.message).toContain('10.0.0.5');
    expect(await t.db.query('SELECT 1 FROM webhook_endpoints WHERE organization_id = $1', [org])).toHaveLength(0);
  });

  it.each([
    ['loopback', ['127.0.0.1']],
    ['IPv6 loopback', ['::1']],
    ['link-local', ['169.254.10.20']],
    ['cloud metadata', ['169.254.169.254']],
    ['private 192.168/16', ['192.168.1.10']],
    ['carrier-grade NAT', ['100.64.0.1']],
    ['IPv6 unique local', ['fd00::1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['one private answer among public ones', [PUBLIC_IP, '172.16.0.9']],
  ])('a live hostname resolving to a %s address is refused', async (_name, addresses) => {
    const host = `resolves-${addresses.join('-').replaceAll(/[.:]/g, '_')}.example`;
    dns.answers.set(host, addresses);
    const org = await newOrg();
    await refused('PUT', endpointPath(org, 'live'), { url: `https://${host}/hooks` }, 400, 'invalid_request', 'url');
  });

  it.each([
    ['http', 'http://partner-http.example/hooks', 'https'],
    ['a loopback IP literal', 'https://127.0.0.1/hooks', 'loopback'],
    ['the metadata IP literal', 'https://169.254.169.254/latest/meta-data', 'link-local'],
    ['a bracketed IPv6 loopback literal', 'https://[::1]/hooks', 'loopback'],
    ['localhost', 'https://localhost/hooks', 'local name'],
    ['a *.localhost name', 'https://api.localhost/hooks', 'local name'],
  ])('a live endpoint using %s is refused: 400 naming url', async (_name, url, says) => {
    dns.answers.set('partner-http.example', [PUBLIC_IP]);
    const org = await newOrg();
    const error = await refused('PUT', endpointPath(org, 'live'), { url }, 400, 'invalid_request', 'url');
    expect(error.message).toContain(says);
  });

  it('a live endpoint at a public IP literal is accepted without asking the resolver', async () => {
    const org = await newOrg();
    expect((await putEndpoint(t, org, 'live', { url: `https://${PUBLIC_IP}/hooks` })).url).toBe(`https://${PUBLIC_IP}/hooks`);
  });

  it('a live hostname that does not resolve (yet) is accepted: deliveries check addresses again when they connect', async () => {
    const org = await newOrg();
    expect((await putEndpoint(t, org, 'live', { url: 'https://not-yet-in-dns.example/hooks' })).mode).toBe('live');
  });

  it('a refused URL leaves the existing endpoint as it was', async () => {
    dns.answers.set('stays.example', [PUBLIC_IP]);
    const org = await newOrg();
    await putEndpoint(t, org, 'live', { url: 'https://stays.example/hooks' });
    dns.answers.set('moved-inside.example', ['10.1.2.3']);
    await refused('PUT', endpointPath(org, 'live'), { url: 'https://moved-inside.example/hooks', enabled: false }, 400, 'invalid_request', 'url');
    const listed = (await t.admin('GET', `/organizations/${org}/webhooks`)).json().data as EndpointObject[];
    expect(listed).toEqual([expect.objectContaining({ mode: 'live', url: 'https://stays.example/hooks', enabled: true })]);
  });

  it.each([
    ['a scheme other than http(s)', 'ftp://localhost/hooks', 'http or https'],
    ['a URL that does not parse', 'not a url', 'does not parse'],
    ['credentials in the URL', 'https://user:pass@localhost/hooks', 'username or password'],
  ])('in either mode, %s is refused: 400 naming url', async (_name, url, says) => {
    const org = await newOrg();
    for (const mode of ['test', 'live']) {
      const error = await refused('PUT', endpointPath(org, mode), { url }, 400, 'invalid_request', 'url');
      expect(error.message).toContain(says);
    }
  });

  it('a URL longer than 2048 characters is a value out of range: 400 naming url', async () => {
    const org = await newOrg();
    await refused('PUT', endpointPath(org, 'test'), { url: `http://localhost/${'a'.repeat(2048)}` }, 400, 'invalid_request', 'url');
  });

  it('an unknown body field is 422 parameter_unknown naming it', async () => {
    const org = await newOrg();
    await refused('PUT', endpointPath(org, 'test'), { url: SANDBOX_URL, secret: 'whsec_mine' }, 422, 'parameter_unknown', 'secret');
  });

  it('a missing url is 422 parameter_missing; an enabled that is not a boolean is 422 parameter_invalid', async () => {
    const org = await newOrg();
    await refused('PUT', endpointPath(org, 'test'), { enabled: true }, 422, 'parameter_missing', 'url');
    await refused('PUT', endpointPath(org, 'test'), { url: SANDBOX_URL, enabled: 'yes' }, 422, 'parameter_invalid', 'enabled');
  });

  it('a mode other than test or live in the path is 400 invalid_request naming mode', async () => {
    const org = await newOrg();
    for (const mode of ['prod', 'sandbox', 'LIVE']) {
      await refused('PUT', endpointPath(org, mode), { url: SANDBOX_URL }, 400, 'invalid_request', 'mode');
    }
  });

  it('an unknown or malformed organization id is 404 resource_not_found', async () => {
    for (const id of [UNKNOWN_ORG, 'not-a-uuid']) {
      await refused('PUT', endpointPath(id, 'test'), { url: SANDBOX_URL }, 404, 'resource_not_found', 'id');
    }
  });

  it('the webhook routes require the operator token', async () => {
    const org = await newOrg();
    const tenant = await createTenant(t);
    for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${tenant.key}`]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/admin/v1${endpointPath(org, 'test')}`,
        headers: authorization ? { authorization } : {},
        payload: { url: SANDBOX_URL },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('authentication_required');
    }
    expect(await t.db.query('SELECT 1 FROM webhook_endpoints WHERE organization_id = $1', [org])).toHaveLength(0);
  });
});

describe('GET /organizations/{id}/webhooks', () => {
  it("lists the organization's endpoints of both modes, never with a secret", async () => {
    dns.answers.set('listed.example', [PUBLIC_IP]);
    const org = await newOrg();
    const sandbox = await putEndpoint(t, org, 'test');
    const live = await putEndpoint(t, org, 'live', { url: 'https://listed.example/hooks', enabled: false });
    await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, {});
    const res = await t.admin('GET', `/organizations/${org}/webhooks`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json() as { data: EndpointObject[] };
    expect(data).toEqual([
      withoutSecret(live),
      { ...withoutSecret(sandbox), previous_secret_expires_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) },
    ]);
    for (const endpoint of data) expect(endpoint).not.toHaveProperty('secret');
    expect(res.body).not.toContain('whsec_');
  });

  it("another organization's endpoints are not listed", async () => {
    const org = await newOrg();
    await putEndpoint(t, await newOrg(), 'test');
    expect((await t.admin('GET', `/organizations/${org}/webhooks`)).json()).toEqual({ data: [] });
  });

  it('an unknown organization is 404', async () => {
    await refused('GET', `/organizations/${UNKNOWN_ORG}/webhooks`, undefined, 404, 'resource_not_found', 'id');
  });
});

describe('POST /organizations/{id}/webhooks/{mode}/rotate-secret', () => {
  it('answers the endpoint with a new secret; the old one keeps signing for 24 h by default', async () => {
    const org = await newOrg();
    const created = await putEndpoint(t, org, 'test');
    const res = await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, {});
    expect(res.statusCode).toBe(200);
    const rotated = res.json() as EndpointObject;
    expect(rotated).toMatchObject({ object: 'webhook_endpoint', mode: 'test', url: SANDBOX_URL, secret: expect.stringMatching(SECRET_PATTERN) });
    expect(rotated.secret).not.toBe(created.secret);
    expect(secondsFromNow(rotated.previous_secret_expires_at)).toBeGreaterThan(86_400 - 60);
    expect(secondsFromNow(rotated.previous_secret_expires_at)).toBeLessThan(86_400 + 60);
    expect(await storedSecrets(org, 'test')).toEqual({ secret: rotated.secret, previous_secret: created.secret });
  });

  it('the body is optional: a rotation without one answers 200 with the 24 h default grace', async () => {
    const org = await newOrg();
    const created = await putEndpoint(t, org, 'test');
    const res = await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().secret).toMatch(SECRET_PATTERN);
    expect(res.json().secret).not.toBe(created.secret);
    expect(secondsFromNow(res.json().previous_secret_expires_at)).toBeGreaterThan(86_400 - 60);
  });

  it('previous_secret_valid_seconds sets how long the old secret keeps signing', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const rotated = (await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, { previous_secret_valid_seconds: 3600 })).json();
    expect(secondsFromNow(rotated.previous_secret_expires_at)).toBeGreaterThan(3600 - 60);
    expect(secondsFromNow(rotated.previous_secret_expires_at)).toBeLessThan(3600 + 60);
  });

  it('previous_secret_valid_seconds 0 retires the old secret at once: previous_secret_expires_at is null', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, {});
    const res = await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, { previous_secret_valid_seconds: 0 });
    expect(res.statusCode).toBe(200);
    expect(res.json().previous_secret_expires_at).toBeNull();
    expect(await storedSecrets(org, 'test')).toEqual({ secret: res.json().secret, previous_secret: null });
  });

  it('previous_secret_valid_seconds accepts 0 to 604800 (7 days); outside is 400 naming it', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const path = `${endpointPath(org, 'test')}/rotate-secret`;
    const max = await t.admin('POST', path, { previous_secret_valid_seconds: 604_800 });
    expect(max.statusCode, max.body).toBe(200);
    expect(secondsFromNow(max.json().previous_secret_expires_at)).toBeGreaterThan(604_800 - 60);
    for (const seconds of [-1, 604_801]) {
      await refused('POST', path, { previous_secret_valid_seconds: seconds }, 400, 'invalid_request', 'previous_secret_valid_seconds');
    }
  });

  it('a previous_secret_valid_seconds that is not an integer is 422 parameter_invalid; an unknown field is 422 parameter_unknown', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const path = `${endpointPath(org, 'test')}/rotate-secret`;
    await refused('POST', path, { previous_secret_valid_seconds: 1.5 }, 422, 'parameter_invalid', 'previous_secret_valid_seconds');
    await refused('POST', path, { previous_secret_valid_seconds: '60' }, 422, 'parameter_invalid', 'previous_secret_valid_seconds');
    await refused('POST', path, { grace: 60 }, 422, 'parameter_unknown', 'grace');
  });

  it('a refused rotation keeps the current secret', async () => {
    const org = await newOrg();
    const created = await putEndpoint(t, org, 'test');
    await t.admin('POST', `${endpointPath(org, 'test')}/rotate-secret`, { previous_secret_valid_seconds: 604_801 });
    expect(await storedSecrets(org, 'test')).toEqual({ secret: created.secret, previous_secret: null });
  });

  it('rotating a mode without an endpoint is 404 naming mode', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    await refused('POST', `${endpointPath(org, 'live')}/rotate-secret`, {}, 404, 'resource_not_found', 'mode');
  });

  it('rotating for an unknown organization is 404 naming id; a bad mode is 400 naming mode', async () => {
    await refused('POST', `${endpointPath(UNKNOWN_ORG, 'test')}/rotate-secret`, {}, 404, 'resource_not_found', 'id');
    await refused('POST', `${endpointPath(await newOrg(), 'prod')}/rotate-secret`, {}, 400, 'invalid_request', 'mode');
  });
});

describe('POST /organizations/{id}/webhooks/{mode}/replay: the request', () => {
  it('answers 202 {object: webhook_replay, mode, queued}', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const res = await t.admin('POST', `${endpointPath(org, 'test')}/replay`, { from: '2020-01-01', to: '2100-01-01' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ object: 'webhook_replay', mode: 'test', queued: 0 });
  });

  it('a mode without an enabled endpoint is 400 webhook_endpoint_not_configured', async () => {
    const org = await newOrg();
    await refused('POST', `${endpointPath(org, 'live')}/replay`, { from: '2020-01-01', to: '2100-01-01' }, 400, 'webhook_endpoint_not_configured', null);
    await putEndpoint(t, org, 'test', { url: SANDBOX_URL, enabled: false });
    await refused('POST', `${endpointPath(org, 'test')}/replay`, { from: '2020-01-01', to: '2100-01-01' }, 400, 'webhook_endpoint_not_configured', null);
  });

  it('from after to is 400 naming from; a bound that is not an ISO 8601 date is 400 naming it', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const path = `${endpointPath(org, 'test')}/replay`;
    await refused('POST', path, { from: '2030-01-02', to: '2030-01-01' }, 400, 'invalid_request', 'from');
    await refused('POST', path, { from: 'yesterday', to: '2030-01-01' }, 400, 'invalid_request', 'from');
    await refused('POST', path, { from: '2030-01-01', to: '2030-02-30' }, 400, 'invalid_request', 'to');
  });

  it('a state other than dead, delivered or none is 400 naming state', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const error = await refused('POST', `${endpointPath(org, 'test')}/replay`, { from: '2020-01-01', to: '2100-01-01', state: 'pending' }, 400, 'invalid_request', 'state');
    expect(error.message).toContain('dead, delivered, none');
  });

  it('from and to are required (422 parameter_missing); an unknown field is 422 parameter_unknown', async () => {
    const org = await newOrg();
    await putEndpoint(t, org, 'test');
    const path = `${endpointPath(org, 'test')}/replay`;
    await refused('POST', path, { from: '2020-01-01' }, 422, 'parameter_missing', 'to');
    await refused('POST', path, { to: '2020-01-01' }, 422, 'parameter_missing', 'from');
    await refused('POST', path, { from: '2020-01-01', to: '2100-01-01', event_type: 'x' }, 422, 'parameter_unknown', 'event_type');
  });

  it('an unknown organization is 404; a bad mode is 400 naming mode', async () => {
    await refused('POST', `${endpointPath(UNKNOWN_ORG, 'test')}/replay`, { from: '2020-01-01', to: '2100-01-01' }, 404, 'resource_not_found', 'id');
    await refused('POST', `${endpointPath(await newOrg(), 'both')}/replay`, { from: '2020-01-01', to: '2100-01-01' }, 400, 'invalid_request', 'mode');
  });
});

describe('GET /organizations/{id}/webhook-deliveries', () => {
  /** An organization with a sandbox endpoint and two intents paid in full: four events, four deliveries. */
  async function orgWithDeliveries() {
    const tenant = await createTenant(t);
    await putEndpoint(t, tenant.organizationId, 'test');
    for (let i = 0; i < 2; i++) await simulate(t, tenant.key, (await createIntent(t, tenant.key)).id);
    const events = await eventRecords(t, tenant.organizationId);
    expect(events).toHaveLength(4);
    return { tenant, org: tenant.organizationId, events };
  }

  it('lists each delivery with its event, attempts, state and outcome, newest first', async () => {
    const { org, events } = await orgWithDeliveries();
    const page = await deliveryPage(t, org);
    expect(page).toMatchObject({ has_more: false, cursor: null });
    expect(page.data).toHaveLength(4);
    expect(page.data.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    for (const delivery of page.data) {
      expect(delivery).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        object: 'webhook_delivery',
        event_id: expect.stringMatching(/^evt_/),
        mode: 'test',
        origin: 'event',
        state: 'pending',
        attempt_count: 0,
        last_http_status: null,
        last_error: null,
        next_attempt_at: expect.stringMatching(ISO),
        delivered_at: null,
        created_at: expect.stringMatching(ISO),
      } satisfies Record<keyof DeliveryObject, unknown>);
    }
    const newestFirst = await t.db.query<{ id: string }>(
      'SELECT id FROM webhook_deliveries WHERE organization_id = $1 ORDER BY created_at DESC, id DESC',
      [org],
    );
    expect(page.data.map((d) => d.id)).toEqual(newestFirst.map((row) => row.id));
  });

  it('a settled delivery shows its outcome: delivered_at and the HTTP status, or the last error', async () => {
    const { org, events } = await orgWithDeliveries();
    await settleLatest(t, [events[0]!.id], 'delivered');
    await settleLatest(t, [events[1]!.id], 'dead');
    const delivered = (await deliveryPage(t, org, `?event_id=${events[0]!.id}`)).data[0]!;
    expect(delivered).toMatchObject({ state: 'delivered', last_http_status: 200, next_attempt_at: null, delivered_at: expect.stringMatching(ISO) });
    const dead = (await deliveryPage(t, org, `?event_id=${events[1]!.id}`)).data[0]!;
    expect(dead).toMatchObject({ state: 'dead', attempt_count: 10, last_http_status: 500, last_error: 'HTTP 500', next_attempt_at: null, delivered_at: null });
  });

  it('event_id keeps the deliveries of that event only', async () => {
    const { org, events } = await orgWithDeliveries();
    const page = await deliveryPage(t, org, `?event_id=${events[2]!.id}`);
    expect(page.data.map((d) => d.event_id)).toEqual([events[2]!.id]);
    expect((await deliveryPage(t, org, '?event_id=evt_00000000000000000000000000')).data).toEqual([]);
  });

  it('status keeps the deliveries in that state only', async () => {
    const { org, events } = await orgWithDeliveries();
    await settleLatest(t, [events[0]!.id, events[3]!.id], 'dead');
    expect((await deliveryPage(t, org, '?status=dead')).data.map((d) => d.event_id).sort()).toEqual([events[0]!.id, events[3]!.id].sort());
    expect((await deliveryPage(t, org, '?status=pending')).data.map((d) => d.event_id).sort()).toEqual([events[1]!.id, events[2]!.id].sort());
    expect((await deliveryPage(t, org, '?status=delivered')).data).toEqual([]);
  });

  it('mode keeps the deliveries of that mode only', async () => {
    const { org } = await orgWithDeliveries();
    expect((await deliveryPage(t, org, '?mode=test')).data).toHaveLength(4);
    expect((await deliveryPage(t, org, '?mode=live')).data).toEqual([]);
  });

  it("another organization's deliveries are never listed", async () => {
    const { org } = await orgWithDeliveries();
    const other = await orgWithDeliveries();
    const ids = (await deliveryPage(t, org)).data.map((d) => d.id);
    for (const record of await deliveryRecords(t, other.org)) expect(ids).not.toContain(record.id);
  });

  /** An organization with a sandbox endpoint and `count` deliveries, each written by its own transaction. */
  async function orgWithSeparateDeliveries(count: number) {
    const tenant = await createTenant(t);
    const org = tenant.organizationId;
    await putEndpoint(t, org, 'test');
    const address = await createAddress(t, tenant.key);
    for (let i = 0; i < count; i++) await simulateAddress(t, tenant.key, address.id, '1');
    const events = await eventRecords(t, org);
    expect(events).toHaveLength(count);
    return { org, events };
  }

  it('pages follow the cursor to the end, each delivery once, newest first', async () => {
    const { org } = await orgWithSeparateDeliveries(5);
    const pages = await walkPages((cursor) => deliveryPage(t, org, `?limit=2${cursor}`));
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    const listed = pages.flatMap((p) => p.data);
    expect(listed.map((d) => d.id)).toEqual((await deliveryPage(t, org)).data.map((d) => d.id));
    expect(new Set(listed.map((d) => d.id)).size).toBe(5);
  });

  it('filters hold across pages', async () => {
    const { org, events } = await orgWithSeparateDeliveries(4);
    const dead = events.slice(0, 3).map((e) => e.id);
    await settleLatest(t, dead, 'dead');
    const pages = await walkPages((cursor) => deliveryPage(t, org, `?status=dead&limit=2${cursor}`));
    expect(pages.map((p) => p.data.length)).toEqual([2, 1]);
    expect(pages.flatMap((p) => p.data.map((d) => d.event_id))).toEqual([...dead].reverse());
  });

  it('a page that ends between deliveries written by one transaction loses none of them', async () => {
    const { org } = await orgWithDeliveries();
    const pages = await walkPages((cursor) => deliveryPage(t, org, `?limit=1${cursor}`));
    expect(pages.flatMap((p) => p.data.map((d) => d.id))).toEqual((await deliveryPage(t, org)).data.map((d) => d.id));
  });

  it("a cursor from another organization's list is refused: 400 naming cursor", async () => {
    const a = await orgWithDeliveries();
    const b = await orgWithDeliveries();
    const { cursor } = await deliveryPage(t, a.org, '?limit=1');
    expect(cursor).not.toBeNull();
    await refused('GET', `${deliveriesPath(b.org)}?cursor=${encodeURIComponent(cursor!)}`, undefined, 400, 'invalid_request', 'cursor');
  });

  it('an unknown status or mode is 400 naming it; a bad limit is 400 naming limit', async () => {
    const org = await newOrg();
    await refused('GET', `${deliveriesPath(org)}?status=queued`, undefined, 400, 'invalid_request', 'status');
    await refused('GET', `${deliveriesPath(org)}?mode=prod`, undefined, 400, 'invalid_request', 'mode');
    await refused('GET', `${deliveriesPath(org)}?limit=0`, undefined, 400, 'invalid_request', 'limit');
  });

  it('an unknown organization is 404', async () => {
    await refused('GET', deliveriesPath(UNKNOWN_ORG), undefined, 404, 'resource_not_found', 'id');
  });
});
