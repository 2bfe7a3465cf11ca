import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import { TooManyFailures } from './auth-failures.js';
import type { Metrics } from '../metrics/metrics.js';
import { isDatabaseUnavailable } from '../store/database.js';
import { ERROR_HTTP, errorEnvelope } from './error-codes.js';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const BODY_LIMIT_BYTES = 256 * 1024;

/** `/metadata/foo` → `metadata.foo`: the name a client used for the field. */
function paramName(path: string, child?: string): string | null {
  const parts = path.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  return parts.length ? parts.join('.') : null;
}

interface ValidationDetail {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The first problem of a schema failure, as code + param; both TypeBox and Ajv shapes are understood. */
function describeValidation(errors: FastifySchemaValidationError[]): { code: ErrorCode; param: string | null; message: string } {
  const details = errors as unknown as ValidationDetail[];
  const first = details.find((e) => e.keyword !== 'boolean') ?? details[0]!;
  const { params, instancePath } = first;
  if (first.keyword === 'required') {
    const missing = (params.requiredProperties as string[] | undefined)?.[0] ?? (params.missingProperty as string);
    const param = paramName(instancePath, missing);
    return { code: 'parameter_missing', param, message: `Missing required field "${param}".` };
  }
  if (first.keyword === 'additionalProperties') {
    const extra = (params.additionalProperties as string[] | undefined)?.[0] ?? (params.additionalProperty as string);
    const param = paramName(instancePath, extra);
    return { code: 'parameter_unknown', param, message: `Unknown field "${param}".` };
  }
  const param = paramName(instancePath);
  if (param === null && first.keyword === 'type') {
    return { code: 'parameter_invalid', param, message: 'The request body must be a JSON object.' };
  }
  return { code: schemaFailureCode(first.keyword), param, message: `Field "${param ?? 'body'}" ${expectation(first, details)}.` };
}

/** Keywords whose failure means the body's shape is wrong: a field of the wrong type, or no allowed shape. */
const STRUCTURAL_KEYWORDS = new Set(['type', 'anyOf', 'oneOf', 'union']);

/**
 * The contract's two classes of invalid input, for a failed schema keyword other than required and
 * additionalProperties: 422 when the structure is wrong (wrong type), 400 when a well-formed value is out of
 * range (too long, too many, not an allowed value, not a date).
 */
export function schemaFailureCode(keyword: string): 'parameter_invalid' | 'invalid_request' {
  return STRUCTURAL_KEYWORDS.has(keyword) ? 'parameter_invalid' : 'invalid_request';
}

/** What the field should have been: every type a union accepts, or the allowed values of an enum. */
function expectation(first: ValidationDetail, details: ValidationDetail[]): string {
  if (first.keyword === 'enum') return `must be one of: ${(first.params.allowedValues as unknown[]).join(', ')}`;
  if (first.keyword === 'type') {
    const types = details.filter((e) => e.keyword === 'type' && e.instancePath === first.instancePath).map((e) => String(e.params.type));
    return `must be ${[...new Set(types)].join(' or ')}`;
  }
  return first.message ?? 'is invalid';
}

/** `bodyLimit`: the route's own, where it has one (the owner-key import). */
function classify(error: FastifyError, bodyLimit?: number): { code: ErrorCode; param: string | null; message: string } {
  if (error instanceof DomainError) return { code: error.code, param: error.param, message: error.message };
  if (error.validation) {
    const detail = describeValidation(error.validation);
    if (error.validationContext === 'body') return detail;
    // Query and path problems are not body structure: they are plain 400s naming the parameter.
    return { code: 'invalid_request', param: detail.param, message: detail.message.replace('Field', 'Parameter') };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'unsupported_media_type', param: null, message: 'Request bodies must be sent as application/json.' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'request_too_large', param: null, message: `The request body is larger than ${(bodyLimit ?? BODY_LIMIT_BYTES) / 1024} KiB.` };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { code: 'invalid_json', param: null, message: 'The request body is not valid JSON.' };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      code: 'service_unavailable',
      param: null,
      message: 'The database is unavailable (restarting or unreachable); the request may not have been processed. Retry it, with the same Idempotency-Key if it had one.',
    };
  }
  if (error.statusCode === 400 && error instanceof SyntaxError) {
    return { code: 'invalid_json', param: null, message: `The request body is not valid JSON: ${error.message}` };
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return { code: 'invalid_request', param: null, message: error.message };
  }
  return { code: 'internal_error', param: null, message: 'Something went wrong on our side. Retrying with the same Idempotency-Key is safe.' };
}

export function sendError(reply: FastifyReply, docsBaseUrl: string, error: DomainError): FastifyReply {
  return reply.code(ERROR_HTTP[error.code].status).send(errorEnvelope(docsBaseUrl, error.code, error.message, error.param));
}

/** Every failure, from any layer, leaves as the one error envelope. `sandboxPrefix` is where the sandbox helpers live. */
/** The 404 page for an address no route serves, when it is under a page prefix; null elsewhere (the API's envelope). */
export type UnknownPage = (request: FastifyRequest) => { headers: Record<string, string>; body: string } | null;

/**
 * `pageFor` answers an unknown address under the pages' prefixes (/admin, /pay) with an HTML page for the
 * browser that asked; it is read at each request, as the pages register after this handler.
 */
export function installErrorHandling(
  app: FastifyInstance,
  docsBaseUrl: string,
  metrics: Metrics,
  sandboxPrefix: string,
  pageFor: () => UnknownPage | null = () => null,
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { code, param, message } = classify(error, request.routeOptions.bodyLimit);
    if (code === 'internal_error') request.log.error({ err: error }, 'request failed');
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error }, 'request failed: the database is unavailable');
      reply.header('retry-after', 1);
    }
    if (code === 'rate_limited') {
      const tooManyFailures = error instanceof TooManyFailures;
      metrics.rateLimited(tooManyFailures ? 'auth_failures' : 'key');
      reply.header('retry-after', tooManyFailures ? error.retryAfterSeconds : (reply.getHeader('ratelimit-reset') ?? 1));
    }
    return reply.code(ERROR_HTTP[code].status).send(errorEnvelope(docsBaseUrl, code, message, param));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply) => {
    const allowed = HTTP_METHODS.filter((method) => app.findRoute({ method, url: request.url.split('?')[0]! }) !== null);
    // A route of this very method found nothing behind its path (an unknown static asset): no such resource, not a 405.
    if (allowed.length > 0 && !allowed.some((method) => method === request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, docsBaseUrl, new DomainError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(' or ')}.`));
    }
    const page = pageFor()?.(request);
    if (page) return reply.code(404).headers(page.headers).send(page.body);
    const path = request.url.split('?')[0]!;
    return sendError(reply, docsBaseUrl, path.startsWith(sandboxPrefix) ? sandboxRouteNotFound(request) : routeNotFound(request));
  });
}

export function routeNotFound(request: FastifyRequest): DomainError {
  return new DomainError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`);
}

/**
 * Any 404 under the sandbox prefix, for a live key on a helper and for a path that is no helper alike: the hint
 * that helpers need a sandbox key keeps a live key's 404 from reading as a typo, and being the same for every
 * path it tells no one which helpers exist.
 */
export function sandboxRouteNotFound(request: FastifyRequest): DomainError {
  return new DomainError('route_not_found', `${routeNotFound(request).message} Sandbox helpers (/test/…) answer sk_test_ keys only.`);
}
