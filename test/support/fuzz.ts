import fc from 'fast-check';

/**
 * Hostile requests generated from an OpenAPI document: every operation's path, query and body, filled with
 * values that look valid, values of the wrong type, strings PostgreSQL cannot store, huge and deeply nested
 * input, and raw JSON texts a parser may read two ways.
 */

export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
}

export interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: Record<string, Schema>;
  body?: Schema;
  /** A route registered ahead of its implementation: its documented answer is 501. */
  notYetAvailable: boolean;
}

interface Document {
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema?: Schema }>; requestBody?: { content: Record<string, { schema: Schema }> }; responses?: Record<string, unknown> }>>;
}

export function operationsOf(doc: Document): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = op.parameters ?? [];
      return {
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}])),
        body: op.requestBody?.content['application/json']?.schema,
        notYetAvailable: '501' in (op.responses ?? {}),
      };
    }),
  );
}

/** Strings that break things: NUL, lone surrogates, over-long, control and markup characters, SQL. */
export const hostileString = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\ud83d', 'a'.repeat(5000), '', ' ', '%', "'; drop table x; --", '<script>', '../..', '\u202e', '0x'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Values that could pass: ids, amounts, dates, names and addresses of the right shape; `known` ids of real objects. */
const plausibleStrings = (known: string[]) => fc.constantFrom(
  ...known,
  '3f0c1e4a-8b2d-4c6e-9a1f-2b3c4d5e6f70',
  '00000000-0000-0000-0000-000000000000',
  '10.5',
  '0.000000000000000001',
  '-1',
  '1e9',
  'USDT',
  'ETH',
  'ethereum',
  'solana',
  'tron',
  'user_1',
  '2026-01-01T00:00:00Z',
  'https://example.com/hook',
  '0x000000000000000000000000000000000000dEaD',
  'test',
  'live',
);

const wrongType = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant([]), fc.constant({}), fc.string({ maxLength: 5 }));

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

/** A value for `schema`: mostly of its shape (enum members, plausible strings, edge numbers), now and then not. */
export function valueFor(schema: Schema, strings: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  const fitting: fc.Arbitrary<unknown>[] = [];
  if (schema.anyOf) fitting.push(...schema.anyOf.map((s) => valueFor(s, strings, depth)));
  if (schema.enum) fitting.push(fc.constantFrom(...schema.enum));
  for (const type of typesOf(schema)) {
    if (type === 'string') fitting.push(strings);
    if (type === 'integer' || type === 'number') {
      fitting.push(fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, 0.1, schema.minimum ?? 1, schema.maximum ?? 100), fc.integer());
    }
    if (type === 'boolean') fitting.push(fc.boolean());
    if (type === 'array' && depth < 4) fitting.push(fc.array(valueFor(schema.items ?? {}, strings, depth + 1), { maxLength: 4 }));
    if (type === 'object' && depth < 4) fitting.push(objectFor(schema, strings, depth));
  }
  // Weighted so that a body of several fields is now and then wholly plausible and reaches the route's own code.
  return fc.oneof(
    ...fitting.map((arbitrary) => ({ arbitrary, weight: 8 })),
    { arbitrary: wrongType, weight: 1 },
    { arbitrary: hostileString, weight: 1 },
  );
}

function objectFor(schema: Schema, strings: fc.Arbitrary<string>, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const fields = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, valueFor(s, strings, depth + 1)]));
  const required = (schema.required ?? []).filter((name) => name in properties);
  return fc.record(fields, { requiredKeys: required });
}

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/** Raw JSON texts: too deep, keys given twice (also escaped differently), huge, escaped NUL and lone surrogates. */
function rawBodies(schema: Schema | undefined): fc.Arbitrary<string> {
  const field = Object.keys(schema?.properties ?? {})[0] ?? 'amount';
  return fc.constantFrom(
    nested(33),
    nested(5000),
    `{"${field}":${nested(40)}}`,
    `{"${field}":"10","${field}":"999"}`,
    `{"${field}":"10","\\u00${field.charCodeAt(0).toString(16)}${field.slice(1)}":"999"}`,
    `{"${field}":"${'a'.repeat(300 * 1024)}"}`,
    `{"${field}":"${'a'.repeat(200 * 1024)}"}`,
    `{"${field}":"\\u0000"}`,
    `{"${field}":"\\ud800"}`,
    `{"\\u0000":1}`,
    `{"\\ud800":1}`,
    `{"${field}":9007199254740993}`,
    `{"${field}":1e400}`,
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '',
    'null',
    '[]',
    '"x"',
    '{',
    '{"a":1}garbage',
  );
}

/** A path segment as a client could send it: lone surrogates become their (invalid) UTF-8 bytes. */
export function segment(value: unknown): string {
  const text = String(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, 'x')) + '%ED%A0%80';
  }
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Mostly JSON; also the types a browser or a careless client sends, and charsets JSON does not allow. */
export const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 6 },
  { arbitrary: fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/octet-stream', 'application/vnd.api+json'), weight: 1 },
);

/** Mostly fresh UUIDs; also keys that are empty, over-long or hold characters a header may not. */
const idempotencyKey = fc.oneof(
  { arbitrary: fc.uuid(), weight: 6 },
  { arbitrary: fc.constantFrom('', ' ', 'a'.repeat(300), 'key\u0000', '\u00e9t\u00e9', 'same-key'), weight: 1 },
);

/** One request for `op`: hostile path parameters and query, a hostile body as a value or as raw text. */
export function requestFor(op: Operation, known: string[]): fc.Arbitrary<FuzzRequest> {
  const strings = plausibleStrings(known);
  const pathValue = fc.oneof(fc.oneof({ arbitrary: strings, weight: 3 }, { arbitrary: hostileString, weight: 1 }).map(segment), fc.constantFrom('%00', '%ED%A0%80', '%', '%zz', 'a'.repeat(300)));
  const path = fc.tuple(...op.pathParams.map(() => pathValue)).map((values) => op.pathParams.reduce((url, name, i) => url.replace(`{${name}}`, values[i]!), op.path));
  const query = fc
    .record(Object.fromEntries(Object.entries(op.queryParams).map(([name, s]) => [name, valueFor(s, strings)])), { requiredKeys: [] })
    .map((values) => Object.entries(values).map(([name, value]) => `${name}=${segment(typeof value === 'object' ? JSON.stringify(value) : value)}`).join('&'));
  const body =
    op.method === 'GET' || op.method === 'DELETE'
      ? fc.constant(undefined)
      : fc.oneof(valueFor(op.body ?? { type: 'object' }, strings).map((value) => JSON.stringify(value) ?? 'null'), rawBodies(op.body));
  return fc.record({ path, query, body, type: contentType, key: idempotencyKey }).map(({ path, query, body, type, key }) => ({
    method: op.method,
    url: query ? `${path}?${query}` : path,
    headers: { 'idempotency-key': key, ...(body === undefined ? {} : { 'content-type': type }) },
    ...(body === undefined ? {} : { payload: body }),
  }));
}
