import type { FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';

/** NUL, or half of a UTF-16 surrogate pair: what PostgreSQL text and jsonb cannot store. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path of the first string (or object key) in `value` that PostgreSQL cannot store, or null. */
export function unstorableStringPath(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableStringPath(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return [...path, key];
      const found = unstorableStringPath(child, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/**
 * One gate for every route, ahead of schema validation: a string PostgreSQL cannot hold, in the body or the
 * query, is a 400 naming the parameter, never a failed query (500) or a silently altered value. Path
 * parameters are ids, each checked against its exact format before any query; a malformed one gets the
 * answer the contract gives it (400 invalid_payment_intent_id, 404 event_not_found, …), NUL or not.
 */
export async function refuseUnstorableStrings(request: FastifyRequest): Promise<void> {
  for (const part of [request.query, request.body]) {
    const path = unstorableStringPath(part);
    if (path) {
      // eslint-disable-next-line no-control-regex -- the offending characters are masked in the answer
      const param = path.map((p) => p.replace(/[\u0000\uD800-\uDFFF]/g, '\uFFFD')).join('.') || null;
      throw new DomainError(
        'invalid_request',
        `${param ?? 'The request'} contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.`,
        param,
      );
    }
  }
}

/**
 * Node keeps the first of two Authorization headers and joins two Idempotency-Key headers with ", ": either
 * way the request would be read differently from what its sender meant, so it is refused.
 */
export function refuseDuplicatedHeaders(request: FastifyRequest, names: readonly string[]): void {
  const raw = request.raw.rawHeaders;
  for (const name of names) {
    const wanted = name.toLowerCase();
    let seen = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === wanted) seen++;
    if (seen > 1) throw new DomainError('invalid_request', `Send the ${name} header once.`, name);
  }
}
