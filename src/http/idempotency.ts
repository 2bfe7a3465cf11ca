import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { Database, Sql } from '../store/database.js';
import { claimIdempotencyKey, storeIdempotentResponse, type IdempotencyScope } from '../store/idempotency.js';
import { ERROR_HTTP, errorEnvelope } from './error-codes.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const MAX_KEY_LENGTH = 255;
/** The contract's "typical" lifetime of a key; a record past it is purged and the key may be used anew. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/** The header's value, or null when absent; a present but unusable value is a 400 naming the header. */
export function readIdempotencyKey(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value || value.length > MAX_KEY_LENGTH) {
    throw new DomainError('invalid_request', `${IDEMPOTENCY_HEADER} must be 1 to ${MAX_KEY_LENGTH} characters.`, IDEMPOTENCY_HEADER);
  }
  return value;
}

/** JSON with object keys sorted, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` count as the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');
}

export interface OperationResult {
  status: number;
  body: unknown;
}

/**
 * Wraps an IDEM route's operation. The key is claimed, the operation runs and its response is stored in
 * one transaction, so concurrent requests with one key run the operation once and a crash leaves either
 * everything or nothing. Business errors (4xx) are stored and replayed like successes; a 5xx rolls the
 * whole transaction back, so a retry runs the operation again.
 */
export class Idempotency {
  constructor(
    private readonly db: Database,
    private readonly docsBaseUrl: string,
  ) {}

  async run(request: FastifyRequest, reply: FastifyReply, operation: (tx: Sql) => Promise<OperationResult>): Promise<FastifyReply> {
    const { db, docsBaseUrl } = this;
    const caller = request.caller!;
    const scope: IdempotencyScope = {
      organizationId: caller.organizationId,
      mode: caller.mode,
      key: readIdempotencyKey(request)!,
    };
    const hash = requestHash(request);
    const outcome = await db.transaction(async (tx) => {
      const held = await claimIdempotencyKey(tx, scope, hash, IDEMPOTENCY_TTL_SECONDS);
      if (held) {
        if (held.request_hash !== hash) {
          throw new DomainError(
            'idempotency_conflict',
            `This ${IDEMPOTENCY_HEADER} was already used with a different request. Use a fresh key for a new operation.`,
            IDEMPOTENCY_HEADER,
          );
        }
        return { replayed: true, status: held.response_status, body: held.response_body };
      }
      await tx.query('SAVEPOINT idempotent_operation');
      let status: number;
      let body: string;
      try {
        const result = await operation(tx);
        status = result.status;
        body = reply.code(status).serialize(result.body) as string;
      } catch (error) {
        if (!(error instanceof DomainError) || ERROR_HTTP[error.code].status >= 500) throw error;
        await tx.query('ROLLBACK TO SAVEPOINT idempotent_operation');
        status = ERROR_HTTP[error.code].status;
        body = JSON.stringify(errorEnvelope(docsBaseUrl, error.code, error.message, error.param));
      }
      await storeIdempotentResponse(tx, scope, status, body);
      return { replayed: false, status, body };
    });
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.body);
  }
}
