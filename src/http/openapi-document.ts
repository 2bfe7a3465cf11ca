import fs from 'node:fs';
import { STATUS_CODES } from 'node:http';

/** What scripts/openapi-examples.ts recorded of one operation's real calls. */
export interface RecordedOperation {
  request: { path?: Record<string, string>; query?: Record<string, string>; headers?: Record<string, string>; body?: unknown };
  responses: Record<string, unknown>;
}
export type RecordedExamples = Record<string, RecordedOperation>;

const EXAMPLES_FILE = new URL('./openapi-examples.json', import.meta.url);
/** Where the curl samples point: the address `npm start` listens on by default. */
const SAMPLE_BASE = 'http://127.0.0.1:8080';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function loadRecordedExamples(): RecordedExamples {
  return JSON.parse(fs.readFileSync(EXAMPLES_FILE, 'utf8')) as RecordedExamples;
}

type Json = Record<string, unknown>;
interface Operation extends Json {
  parameters?: { in: string; name: string; example?: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, Json> };
  responses: Record<string, { description: string; content?: Record<string, Json> }>;
  'x-error-codes'?: Record<string, string[]>;
  'x-optional-body'?: boolean;
}
interface Document {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
}

/**
 * What the route schemas cannot say, added to the generated document: a description on every response (the
 * error codes it can carry, for errors), the examples recorded from real calls, a curl sample, and optional
 * request bodies marked so.
 */
export function completeDocument<D>(generated: D, examples: RecordedExamples): D {
  const doc = generated as unknown as Document;
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      describeResponses(operation);
      if (operation['x-optional-body'] && operation.requestBody) operation.requestBody.required = false;
      delete operation['x-optional-body'];
      const recorded = examples[`${method.toUpperCase()} ${path}`];
      if (recorded) attachExamples(operation, method, path, recorded);
    }
  }
  return generated;
}

function describeResponses(operation: Operation): void {
  const errorCodes = operation['x-error-codes'] ?? {};
  for (const status of Object.keys(errorCodes)) {
    operation.responses[status] ??= {
      description: '',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    // An error status no code of this operation answers with (403 on GET /health) is not one it can return.
    if (Number(status) >= 400 && !errorCodes[status]) {
      delete operation.responses[status];
      continue;
    }
    const own = response.description && response.description !== 'Default Response' ? response.description : null;
    const reason = STATUS_CODES[Number(status)] ?? status;
    const what = Number(status) < 300 ? answerName(response.content?.['application/json']?.schema as SchemaShape | undefined) : null;
    const base = own ?? (what ? `${reason}: ${what}` : reason);
    const codes = errorCodes[status];
    response.description = codes ? `${base.replace(/\.?$/, '.')} Codes: ${codes.map((code) => `\`${code}\``).join(', ')}.` : base;
  }
}

interface SchemaShape {
  title?: string;
  properties?: { object?: { const?: string; enum?: string[] }; has_more?: unknown; data?: { items?: { title?: string } } };
}

/** What a successful answer is, for its description: `the PaymentIntent`, `one page of Event`, the `object` it names. */
function answerName(schema: SchemaShape | undefined): string | null {
  if (!schema) return null;
  if (schema.title) return `the ${schema.title}`;
  const object = schema.properties?.object?.const ?? schema.properties?.object?.enum?.[0];
  if (object) return `the \`${object}\` object`;
  if (schema.properties?.has_more) {
    const item = schema.properties.data?.items?.title;
    return `one page of the list${item ? ` of ${item}` : ''} (\`has_more\`, \`data\`, \`cursor\`)`;
  }
  return null;
}

function attachExamples(operation: Operation, method: string, path: string, recorded: RecordedOperation): void {
  const { request } = recorded;
  for (const parameter of operation.parameters ?? []) {
    const value = parameter.in === 'path' ? request.path?.[parameter.name] : parameter.in === 'query' ? request.query?.[parameter.name] : undefined;
    if (value !== undefined) parameter.example = value;
    if (parameter.in === 'header' && parameter.name === 'Idempotency-Key') parameter.example = request.headers?.['Idempotency-Key'];
  }
  const json = operation.requestBody?.content['application/json'];
  if (json && request.body !== undefined) json.example = request.body;
  for (const [status, body] of Object.entries(recorded.responses)) {
    const content = operation.responses[status]?.content;
    // A text answer (a CSV statement, metrics) illustrates its text media type, an object the JSON one.
    const media = typeof body === 'string' ? (content?.['text/csv'] ?? content?.['text/plain']) : (content?.['application/json'] ?? content?.['text/plain']);
    if (media) media.example = body;
  }
  operation['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source: curl(method, path, request) }];
}

function curl(method: string, path: string, request: RecordedOperation['request']): string {
  const url = path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(request.path?.[name] ?? `<${name}>`));
  const query = new URLSearchParams(request.query ?? {}).toString();
  const token = path.startsWith('/admin/') ? '<operator_token>' : 'sk_test_…';
  const lines = [`curl -X ${method.toUpperCase()} '${SAMPLE_BASE}${url}${query ? `?${query}` : ''}'`, `-H 'Authorization: Bearer ${token}'`];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`-H '${name}: ${value}'`);
  if (request.body !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d '${JSON.stringify(request.body)}'`);
  return lines.join(' \\\n  ');
}
