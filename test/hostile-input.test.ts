import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH } from '../src/http/json-shape.js';
import { ADMIN_TOKEN, startTestApp, type Tenant, type TestApp } from './support/app.js';
import { countRows, createIntent, createTenant, errorOf, postIntent } from './support/partner.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
});
afterAll(() => t.close());

const NUL = 'a\u0000b';
const LONE_HIGH = 'a\uD800b';
const LONE_LOW = 'a\uDC00b';
const UNSTORABLE = [
  ['a NUL character', NUL],
  ['an unpaired high surrogate', LONE_HIGH],
  ['an unpaired low surrogate', LONE_LOW],
] as const;

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The request with the bad string placed; `param` is what the answer must name. */
  make: (bad: string) => { body?: unknown; query?: Record<string, string> };
  param: string;
}

const intentBody = { amount: '10', currencies: ['USDC'] };
const CASES: Case[] = [
  { name: 'intent external_ref', method: 'POST', path: '/payment-intents', make: (bad) => ({ body: { ...intentBody, external_ref: bad } }), param: 'external_ref' },
  { name: 'intent description', method: 'POST', path: '/payment-intents', make: (bad) => ({ body: { ...intentBody, description: bad } }), param: 'description' },
  { name: 'intent currency', method: 'POST', path: '/payment-intents', make: (bad) => ({ body: { ...intentBody, currencies: [bad] } }), param: 'currencies.0' },
  { name: 'intent amount', method: 'POST', path: '/payment-intents', make: (bad) => ({ body: { ...intentBody, amount: bad } }), param: 'amount' },
  { name: 'metadata value', method: 'POST', path: '/payment-intents', make: (bad) => ({ body: { ...intentBody, metadata: { order: bad } } }), param: 'metadata.order' },
  { name: 'address asset', method: 'POST', path: '/addresses', make: (bad) => ({ body: { asset: bad, network: 'solana' } }), param: 'asset' },
  { name: 'address network', method: 'POST', path: '/addresses', make: (bad) => ({ body: { asset: 'USDC', network: bad } }), param: 'network' },
  { name: 'address external_ref', method: 'POST', path: '/addresses', make: (bad) => ({ body: { asset: 'USDC', network: 'solana', external_ref: bad } }), param: 'external_ref' },
  { name: 'address label', method: 'POST', path: '/addresses', make: (bad) => ({ body: { asset: 'USDC', network: 'solana', label: bad } }), param: 'label' },
  { name: 'intents external_ref filter', method: 'GET', path: '/payment-intents', make: (bad) => ({ query: { external_ref: bad } }), param: 'external_ref' },
  { name: 'addresses external_ref filter', method: 'GET', path: '/addresses', make: (bad) => ({ query: { external_ref: bad } }), param: 'external_ref' },
  { name: 'addresses asset filter', method: 'GET', path: '/addresses', make: (bad) => ({ query: { asset: bad } }), param: 'asset' },
  { name: 'addresses network filter', method: 'GET', path: '/addresses', make: (bad) => ({ query: { network: bad } }), param: 'network' },
  { name: 'transactions external_ref filter', method: 'GET', path: '/transactions', make: (bad) => ({ query: { external_ref: bad } }), param: 'external_ref' },
  { name: 'transactions type filter', method: 'GET', path: '/transactions', make: (bad) => ({ query: { type: bad } }), param: 'type' },
  { name: 'transactions status filter', method: 'GET', path: '/transactions', make: (bad) => ({ query: { status: bad } }), param: 'status' },
  { name: 'transactions from', method: 'GET', path: '/transactions', make: (bad) => ({ query: { from: bad } }), param: 'from' },
  { name: 'events type filter', method: 'GET', path: '/events', make: (bad) => ({ query: { type: bad } }), param: 'type' },
  { name: 'events related_to', method: 'GET', path: '/events', make: (bad) => ({ query: { related_to: bad } }), param: 'related_to' },
  { name: 'events to', method: 'GET', path: '/events', make: (bad) => ({ query: { to: bad } }), param: 'to' },
  { name: 'list cursor', method: 'GET', path: '/events', make: (bad) => ({ query: { cursor: bad } }), param: 'cursor' },
  { name: 'list limit', method: 'GET', path: '/transactions', make: (bad) => ({ query: { limit: bad } }), param: 'limit' },
  { name: 'simulated deposit currency', method: 'POST', path: '/test/payment-intents/{intent}/simulate-deposit', make: (bad) => ({ body: { currency: bad } }), param: 'currency' },
  { name: 'simulated deposit amount', method: 'POST', path: '/test/addresses/{address}/simulate-deposit', make: (bad) => ({ body: { amount: bad } }), param: 'amount' },
];

async function send(c: Case, bad: string, ids: { intent: string; address: string }) {
  const { body, query } = c.make(bad);
  const path = c.path.replace('{intent}', ids.intent).replace('{address}', ids.address);
  const search = query ? `?${new URLSearchParams(query).toString()}` : '';
  return t.call(tenant.key, c.method, `${path}${search}`, {
    ...(body === undefined ? {} : { body }),
    ...(c.method === 'POST' && !c.path.startsWith('/test') ? { idempotencyKey: randomUUID() } : {}),
  });
}

describe('no input reaches PostgreSQL that it cannot store', () => {
  let ids: { intent: string; address: string };
  beforeAll(async () => {
    const intent = await createIntent(t, tenant.key);
    const address = await t.call(tenant.key, 'POST', '/addresses', { body: { asset: 'USDC', network: 'solana' }, idempotencyKey: randomUUID() });
    ids = { intent: intent.id, address: address.json().id };
  });

  // A URL cannot carry half a surrogate pair (percent-decoding yields U+FFFD), so those go in bodies only.
  for (const [what, bad] of UNSTORABLE) {
    const cases = bad === NUL ? CASES : CASES.filter((c) => c.method === 'POST');
    it.each(cases)(`${what} in the $name is 400 invalid_request naming $param, and stores nothing`, async (c) => {
      const intentsBefore = await countRows(t, 'SELECT 1 FROM payment_intents', []);
      const addressesBefore = await countRows(t, 'SELECT 1 FROM deposit_addresses', []);
      const res = await send(c, bad, ids);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: c.param });
      expect(await countRows(t, 'SELECT 1 FROM payment_intents', [])).toBe(intentsBefore);
      expect(await countRows(t, 'SELECT 1 FROM deposit_addresses', [])).toBe(addressesBefore);
    });
  }

  it('a metadata key holding a NUL is 400 invalid_request naming the key', async () => {
    const res = await postIntent(t, tenant.key, { ...intentBody, metadata: { 'or\u0000der': 'x' } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'metadata.or\uFFFDder' });
  });

  it('operator API bodies are guarded alike: an organization name with a NUL is 400 naming name', async () => {
    const res = await t.admin('POST', '/organizations', { name: NUL });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'name' });
  });

  it('a well-paired surrogate (an emoji) is stored and echoed verbatim', async () => {
    const intent = await createIntent(t, tenant.key, { description: 'thanks 🙏', metadata: { note: '€ and 😀' } });
    expect(intent).toMatchObject({ description: 'thanks 🙏', metadata: { note: '€ and 😀' } });
  });

  const PATH_IDS = [
    ['GET', '/payment-intents/a%00b', 400, 'invalid_payment_intent_id'],
    ['GET', '/events/evt_%00', 404, 'event_not_found'],
    ['GET', '/addresses/a%00b', 404, 'resource_not_found'],
    ['GET', '/transactions/a%00b', 404, 'resource_not_found'],
    ['POST', '/test/payment-intents/a%00b/simulate-deposit', 400, 'invalid_payment_intent_id'],
  ] as const;
  it.each(PATH_IDS)('a NUL in a path id (%s %s) gets the contract answer for a malformed id: %i %s', async (method, path, status, code) => {
    const res = await t.call(tenant.key, method, path);
    expect(res.statusCode, res.body).toBe(status);
    expect(errorOf(res).code).toBe(code);
  });
});

describe('every string in a request has a maximum length', () => {
  type Schema = Record<string, unknown>;
  /** The JSON-schema nodes of type string (and records' key schemas) that have no maxLength, by path. */
  function unbounded(schema: Schema | undefined, path: string, found: string[]): string[] {
    if (!schema || typeof schema !== 'object') return found;
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if (types.includes('string') && typeof schema.maxLength !== 'number' && schema.enum === undefined && schema.const === undefined) {
      found.push(path);
    }
    if (schema.patternProperties || (schema.additionalProperties && typeof schema.additionalProperties === 'object')) {
      const names = schema.propertyNames as Schema | undefined;
      if (typeof names?.maxLength !== 'number') found.push(`${path}{keys}`);
    }
    for (const [key, child] of Object.entries((schema.properties as Record<string, Schema>) ?? {})) unbounded(child, `${path}.${key}`, found);
    for (const child of Object.values((schema.patternProperties as Record<string, Schema>) ?? {})) unbounded(child, `${path}{}`, found);
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const child of (schema[keyword] as Schema[]) ?? []) unbounded(child, path, found);
    }
    if (schema.items) unbounded(schema.items as Schema, `${path}[]`, found);
    return found;
  }

  it.each(['/connect/v1/openapi.json', '/admin/v1/openapi.json'])('in %s, every string parameter and body field declares maxLength', async (url) => {
    const doc = (await t.app.inject({ method: 'GET', url })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
    };
    const found: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'header') continue;
          checked++;
          unbounded(parameter.schema, `${method.toUpperCase()} ${path} ${parameter.in}:${parameter.name}`, found);
        }
        for (const media of Object.values(operation.requestBody?.content ?? {})) {
          checked++;
          unbounded(media.schema, `${method.toUpperCase()} ${path} body`, found);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(found).toEqual([]);
  });

  it('a metadata key over 40 characters is 400 invalid_request', async () => {
    const res = await postIntent(t, tenant.key, { ...intentBody, metadata: { ['k'.repeat(41)]: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res).code).toBe('invalid_request');
    expect(errorOf(res).param).toMatch(/^metadata/);
  });

  it('a currencies item over 32 characters is 400 invalid_request naming it', async () => {
    const res = await postIntent(t, tenant.key, { ...intentBody, currencies: ['X'.repeat(33)] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'currencies.0' });
  });

  it.each([
    ['external_ref', '/payment-intents', 256],
    ['cursor', '/events', 513],
    ['limit', '/events', 11],
    ['type', '/events', 513],
  ])('a %s query parameter over its maximum is 400 invalid_request naming it', async (name, path, length) => {
    const res = await t.call(tenant.key, 'GET', `${path}?${name}=${'1'.repeat(length)}`);
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: name });
  });
});

describe('amounts: plain decimals that a JSON number holds exactly', () => {
  it.each([
    ['a leading space', ' 5'],
    ['a trailing space', '5 '],
    ['tabs and newlines', '\t5\n'],
    ['a no-break space', '\u00A05'],
    ['a plus sign', '+5'],
    ['an exponent', '5e0'],
    ['a leading zero', '05'],
    ['a trailing dot', '5.'],
  ])('an amount with %s (%j) is 400 invalid_request naming amount', async (_what, amount) => {
    const res = await postIntent(t, tenant.key, { amount, currencies: ['USDC'] });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
  });

  it.each([
    ['above 2^53', '9007199254740993'],
    ['17 significant digits that round to a short double', '0.30000000000000001'],
    ['19 significant digits', '1234567890.123456789'],
  ])('a JSON-number amount %s is 400 naming amount: it would be rounded silently', async (_what, literal) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/connect/v1/payment-intents',
      headers: { authorization: `Bearer ${tenant.key}`, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      payload: `{"amount": ${literal}, "currencies": ["USDC"]}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(errorOf(res).message).toContain('15 significant digits');
  });

  it('an inexact JSON number anywhere in a body (a metadata value) is refused naming its path', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/connect/v1/payment-intents',
      headers: { authorization: `Bearer ${tenant.key}`, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      payload: '{"amount": "10", "currencies": ["USDC"], "metadata": {"order": 12345678901234567}}',
    });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'metadata.order' });
  });

  it('a digit run inside a JSON string is not mistaken for a number', async () => {
    const intent = await createIntent(t, tenant.key, { description: 'order 12345678901234567890', metadata: { n: 0.1 } });
    expect(intent).toMatchObject({ description: 'order 12345678901234567890', metadata: { n: 0.1 } });
  });

  it('a decimal-string amount with more than 15 significant digits is 400: the envelope shows amounts as JSON numbers', async () => {
    const res = await postIntent(t, tenant.key, { amount: '1234567.123456789', currencies: ['USDC'] });
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
  });

  it('15 significant digits are accepted and come back exactly', async () => {
    const intent = await createIntent(t, tenant.key, { amount: '123456789.123456', currencies: ['USDC'] });
    expect(intent.amount).toBe(123456789.123456);
  });

  it.each([
    ['USDC', '1000000000.01'],
    ['ETH', '1000001'],
    ['BTC', '21000001'],
  ])('an amount above the catalog maximum of %s (%s) is 400 naming amount', async (asset, amount) => {
    const res = await postIntent(t, tenant.key, { amount, currencies: [asset] });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount' });
    expect(errorOf(res).message).toContain(asset);
  });
});

describe('body shape: nesting depth and keys given twice', () => {
  const raw = (path: string, payload: string, key: string | null = tenant.key) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...(key ? { authorization: `Bearer ${key}` } : {}) },
      payload,
    });

  it(`a body nested deeper than ${MAX_JSON_DEPTH} levels is 400 invalid_request before it is parsed, on partner, operator and sign-in routes alike`, async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const [path, key] of [
      ['/connect/v1/payment-intents', tenant.key],
      ['/admin/v1/organizations', ADMIN_TOKEN],
    ] as const) {
      const res = await raw(path, deep, key);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`more than ${MAX_JSON_DEPTH} levels deep`) });
    }
    // The dashboard's sign-in takes a form; a deep JSON body is refused there too, never a 500.
    const signIn = await raw('/admin/sign-in', deep, null);
    expect(signIn.statusCode, signIn.body).toBeLessThan(500);
  });

  it(`nesting of exactly ${MAX_JSON_DEPTH} levels is parsed (and judged by the schema, not the depth rule)`, async () => {
    const metadata = `${'{"a":'.repeat(MAX_JSON_DEPTH - 1)}1${'}'.repeat(MAX_JSON_DEPTH - 1)}`;
    const res = await raw('/connect/v1/payment-intents', `{"amount":"10","currencies":["USDC"],"metadata":${metadata.slice(0, -1)}}`);
    expect(errorOf(res).message).not.toContain('levels deep');
  });

  it('a key given twice is 400 invalid_request naming it: {"amount":"10","amount":"999"} creates nothing', async () => {
    const before = await countRows(t, 'SELECT 1 FROM payment_intents WHERE organization_id = $1', [tenant.organizationId]);
    const res = await raw('/connect/v1/payment-intents', '{"amount":"10","amount":"999","currencies":["USDC"]}');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'amount', message: 'amount is given twice in the body; send each key once.' });
    expect(await countRows(t, 'SELECT 1 FROM payment_intents WHERE organization_id = $1', [tenant.organizationId])).toBe(before);
  });

  it('a nested key given twice is named by its path, and an escaped spelling of the same key counts as the same key', async () => {
    const nested = await raw('/connect/v1/payment-intents', '{"amount":"10","currencies":["USDC"],"metadata":{"order":"1","order":"2"}}');
    expect(errorOf(nested)).toMatchObject({ code: 'invalid_request', param: 'metadata.order' });
    const escaped = await raw('/connect/v1/payment-intents', '{"amount":"10","currencies":["USDC"],"\\u0061mount":"999"}');
    expect(errorOf(escaped)).toMatchObject({ code: 'invalid_request', param: 'amount' });
  });

  it('the same key in two different objects is no duplicate', () => {
    expect(jsonShapeProblem('[{"a":1},{"a":2}]')).toBeNull();
    expect(jsonShapeProblem('{"a":{"b":1},"c":{"b":2}}')).toBeNull();
    expect(jsonShapeProblem('{"a":"{\\"a\\":1}","b":"}"}')).toBeNull();
    expect(jsonShapeProblem('{"x":[{"k":1,"k":2}]}')).toEqual({ kind: 'duplicate_key', path: 'x.0.k' });
  });
});

describe('free text in a path', () => {
  it('GET /balances/{external_ref} with a NUL in the ref is 400 invalid_request naming external_ref, never a failed query', async () => {
    const res = await t.call(tenant.key, 'GET', '/balances/a%00b');
    expect(res.statusCode).toBe(400);
    expect(errorOf(res)).toMatchObject({ code: 'invalid_request', param: 'external_ref' });
  });
});
