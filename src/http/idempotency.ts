import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { Database, Sql } from '../store/database.js';
import { claimIdempotencyKey, storeIdempotentResponse, type IdempotencyScope, type StoredResponse } from '../store/idempotency.js';
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

interface Outcome {
  replayed: boolean;
  status: number;
  body: string;
}

/** Carries a business error out of the operation's transaction, so that its writes roll back first. */
class StorableFailure extends Error {
  constructor(readonly failure: DomainError) {
    super(failure.message);
  }
}

/**
 * Runs an IDEM route's operation. The key is claimed, the operation runs and its response is stored in
 * one transaction, so concurrent requests with one key run the operation once and a crash leaves either
 * everything or nothing. Business errors (4xx) are stored and replayed like successes: their operation's
 * writes are rolled back and the error is recorded in a transaction of its own. A 5xx stores nothing, so a
 * retry runs the operation again.
 */
export class Idempotency {
  constructor(
    private readonly db: Database,
    private readonly docsBaseUrl: string,
  ) {}

  async run(request: FastifyRequest, reply: FastifyReply, operation: (tx: Sql) => Promise<OperationResult>): Promise<FastifyReply> {
    const caller = request.caller!;
    const scope: IdempotencyScope = { organizationId: caller.organizationId, mode: caller.mode, key: readIdempotencyKey(request)! };
    const hash = requestHash(request);
    let outcome: Outcome;
    try {
      outcome = await this.db.transaction(async (tx) => {
        const held = await claimIdempotencyKey(tx, scope, hash, IDEMPOTENCY_TTL_SECONDS);
        if (held) return replay(held, hash);
        let result: OperationResult;
        try {
          result = await operation(tx);
        } catch (error) {
          throw error instanceof DomainError && ERROR_HTTP[error.code].status < 500 ? new StorableFailure(error) : error;
        }
        const body = reply.code(result.status).serialize(result.body) as string;
        await storeIdempotentResponse(tx, scope, result.status, body);
        return { replayed: false, status: result.status, body };
      });
    } catch (error) {
      if (!(error instanceof StorableFailure)) throw error;
      outcome = await this.storeFailure(scope, hash, error.failure);
    }
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.body);
  }

  private storeFailure(scope: IdempotencyScope, hash: string, failure: DomainError): Promise<Outcome> {
    return this.db.transaction(async (tx) => {
      // Another request with this key may have committed in between: then its answer is the answer.
      const held = await claimIdempotencyKey(tx, scope, hash, IDEMPOTENCY_TTL_SECONDS);
      if (held) return replay(held, hash);
      const status = ERROR_HTTP[failure.code].status;
      const body = JSON.stringify(errorEnvelope(this.docsBaseUrl, failure.code, failure.message, failure.param));
      await storeIdempotentResponse(tx, scope, status, body);
      return { replayed: false, status, body };
    });
  }
}

function replay(held: StoredResponse, hash: string): Outcome {
  if (held.request_hash !== hash) {
    throw new DomainError(
      'idempotency_conflict',
      `This ${IDEMPOTENCY_HEADER} was already used with a different request. Use a fresh key for a new operation.`,
      IDEMPOTENCY_HEADER,
    );
  }
  return { replayed: true, status: held.response_status, body: held.response_body };
}
