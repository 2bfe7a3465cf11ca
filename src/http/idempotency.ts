import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { UNSTORABLE } from '../domain/text.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Database, Sql } from '../store/database.js';
import {
  claimIdempotencyKey,
  findIdempotentResponse,
  heldResponse,
  storeIdempotentResponse,
  type AnswerClaim,
  type IdempotencyScope,
  type StoredAnswer,
  type StoredResponse,
} from '../store/idempotency.js';
import { ERROR_HTTP, errorEnvelope } from './error-codes.js';
import { sendJsonText } from './raw-json.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** On a replay, the fields answered null because the original answer showed a secret in them. */
export const WITHHELD_HEADER = 'Idempotent-Replay-Withheld';
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
  // The key is stored: one PostgreSQL cannot hold would fail the claim's query (500) instead of the request.
  if (UNSTORABLE.test(value)) {
    throw new DomainError('invalid_request', `${IDEMPOTENCY_HEADER} contains a NUL character, which cannot be stored.`, IDEMPOTENCY_HEADER);
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
  /**
   * Top-level fields of `body` that show a bearer secret (a refund link's `url`): answered this once, never
   * stored. The stored answer, so a replay, has them null (docs/conventions.md, Idempotency).
   */
  secrets?: readonly string[];
  /**
   * Work for after the commit (a provider call that must not run inside the transaction). It runs once, in
   * the background: a retry with the same key meanwhile is answered from the stored response, so it never
   * runs twice; its own outcome is recorded by the work itself.
   */
  afterCommit?: ((log: FastifyBaseLogger) => Promise<void>) | null;
}

/**
 * An IDEM route's work in two steps. The first runs outside any transaction: validation and calls to
 * providers (custody), which must never hold a database transaction open. It returns the second step,
 * which writes everything in the transaction that also claims the key and stores the answer.
 */
export type Operation = () => Promise<(tx: Sql) => Promise<OperationResult>>;

/**
 * The second step of an IDEM route whose writes fit one statement, which also claims the key and stores
 * the answer (`claimCte`): no transaction, one round trip. `answer` turns the response into the record to
 * claim the key with. It resolves false when another request holds the key, having written nothing.
 */
export type SingleStatementWrite = (sql: Sql, answer: (status: number, body: unknown) => AnswerClaim) => Promise<boolean>;

interface Outcome {
  replayed: boolean;
  status: number;
  body: string;
  withheld: readonly string[];
}

/** Carries a business error out of the operation's transaction, so that its writes roll back first. */
class StorableFailure extends Error {
  constructor(readonly failure: DomainError) {
    super(failure.message);
  }
}

const isStorable = (error: unknown): error is DomainError => error instanceof DomainError && ERROR_HTTP[error.code].status < 500;

/**
 * Runs an IDEM route's operation. An answer already stored under the key is replayed before any work is
 * done. Otherwise the outside step runs, then the key is claimed, the writes run and the answer is stored in
 * one transaction, so concurrent requests with one key write once and a crash leaves everything or nothing
 * (a concurrent twin may repeat the outside step; its result is discarded and the winner's answer replayed).
 * Business errors (4xx) are stored and replayed like successes: their writes are rolled back and the error is
 * recorded in a transaction of its own. A 5xx (a failing provider included) stores nothing, so a retry runs
 * the operation again.
 */
export class Idempotency {
  constructor(
    private readonly db: Database,
    private readonly docsBaseUrl: string,
    private readonly metrics: Metrics,
  ) {}

  run(request: FastifyRequest, reply: FastifyReply, operation: Operation): Promise<FastifyReply> {
    return this.answer(request, reply, (scope, hash) => this.execute(reply, scope, hash, operation));
  }

  /** The same guarantees as `run`, for an operation whose writes are one statement (`SingleStatementWrite`). */
  runSingleStatement(request: FastifyRequest, reply: FastifyReply, operation: () => Promise<SingleStatementWrite>): Promise<FastifyReply> {
    return this.answer(request, reply, (scope, hash) => this.executeSingleStatement(reply, scope, hash, operation));
  }

  private async answer(
    request: FastifyRequest,
    reply: FastifyReply,
    execute: (scope: IdempotencyScope, hash: string) => Promise<Outcome>,
  ): Promise<FastifyReply> {
    const caller = request.caller!;
    const scope: IdempotencyScope = { organizationId: caller.organizationId, mode: caller.mode, key: readIdempotencyKey(request)! };
    const hash = requestHash(request);
    const earlier = await findIdempotentResponse(this.db, scope);
    const outcome = earlier ? replay(earlier, hash) : await execute(scope, hash);
    if (outcome.replayed) {
      reply.header('idempotent-replayed', 'true');
      if (outcome.withheld.length > 0) reply.header(WITHHELD_HEADER, outcome.withheld.join(', '));
      this.metrics.replayed();
    }
    return sendJsonText(reply.code(outcome.status), outcome.body);
  }

  private async execute(reply: FastifyReply, scope: IdempotencyScope, hash: string, operation: Operation): Promise<Outcome> {
    try {
      const write = await operation();
      // The work after commit comes out with the outcome: a body run again after a conflict keeps nothing of its first run.
      const { outcome, afterCommit } = await this.db.transaction(async (tx): Promise<{ outcome: Outcome; afterCommit: OperationResult['afterCommit'] }> => {
        const held = await claimIdempotencyKey(tx, scope, hash, IDEMPOTENCY_TTL_SECONDS);
        if (held) return { outcome: replay(held, hash), afterCommit: null };
        let result: OperationResult;
        try {
          result = await write(tx);
        } catch (error) {
          throw isStorable(error) ? new StorableFailure(error) : error;
        }
        const body = reply.code(result.status).serialize(result.body) as string;
        await storeIdempotentResponse(tx, scope, storedAnswer(reply, result, body));
        return { outcome: { replayed: false, status: result.status, body, withheld: [] }, afterCommit: result.afterCommit };
      });
      if (afterCommit) void afterCommit(reply.log).catch((err: unknown) => reply.log.error({ err }, 'work after commit failed; a worker resumes it'));
      return outcome;
    } catch (error) {
      if (error instanceof StorableFailure) return this.storeFailure(scope, hash, error.failure);
      if (isStorable(error) && error.code !== 'idempotency_conflict') return this.storeFailure(scope, hash, error);
      throw error;
    }
  }

  private async executeSingleStatement(
    reply: FastifyReply,
    scope: IdempotencyScope,
    hash: string,
    operation: () => Promise<SingleStatementWrite>,
  ): Promise<Outcome> {
    try {
      const write = await operation();
      let written: Outcome | null = null;
      const claimed = await write(this.db, (status, body) => {
        written = { replayed: false, status, body: reply.code(status).serialize(body) as string, withheld: [] };
        return { scope, requestHash: hash, ttlSeconds: IDEMPOTENCY_TTL_SECONDS, status, body: written.body };
      });
      if (claimed) return written!;
      // The holder's statement committed before ours could decide, so its answer is there to replay.
      return replay((await heldResponse(this.db, scope))!, hash);
    } catch (error) {
      if (isStorable(error) && error.code !== 'idempotency_conflict') return this.storeFailure(scope, hash, error);
      throw error;
    }
  }

  private storeFailure(scope: IdempotencyScope, hash: string, failure: DomainError): Promise<Outcome> {
    return this.db.transaction(async (tx) => {
      // Another request with this key may have committed in between: then its answer is the answer.
      const held = await claimIdempotencyKey(tx, scope, hash, IDEMPOTENCY_TTL_SECONDS);
      if (held) return replay(held, hash);
      const status = ERROR_HTTP[failure.code].status;
      const body = JSON.stringify(errorEnvelope(this.docsBaseUrl, failure.code, failure.message, failure.param));
      await storeIdempotentResponse(tx, scope, { status, body, withheld: [] });
      return { replayed: false, status, body, withheld: [] };
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
  return { replayed: true, status: held.response_status, body: held.response_body, withheld: held.withheld };
}

/**
 * The answer as its record keeps it: what was sent, except that each secret field is null, so no copy of the
 * database (a replica, a backup) holds a secret. Not encrypted instead: a key derived from the request is no
 * protection, and the secret is stored only as a hash elsewhere, so it is shown once, as an API key is.
 */
function storedAnswer(reply: FastifyReply, result: OperationResult, body: string): StoredAnswer {
  const secrets = result.secrets ?? [];
  if (secrets.length === 0) return { status: result.status, body, withheld: [] };
  const withheld = Object.fromEntries(secrets.map((field) => [field, null]));
  return { status: result.status, body: reply.serialize({ ...(result.body as object), ...withheld }) as string, withheld: secrets };
}
