import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { UNSTORABLE } from '../domain/text.js';
import type { Metrics } from '../metrics/metrics.js';
import type { StoredAnswer } from '../store/idempotency.js';
import type { Answer, Once } from '../use-cases/once.js';
import { ERROR_HTTP, errorEnvelope } from './error-codes.js';
import { sendJsonText } from './raw-json.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** On a replay, the fields answered null because the original answer showed a secret in them. */
export const WITHHELD_HEADER = 'Idempotent-Replay-Withheld';
const MAX_KEY_LENGTH = 255;

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

/** How a route answers the value its operation returned: status, body, and the top-level fields of it that show a bearer secret. */
export interface Presented {
  status: number;
  body: unknown;
  /**
   * Fields of `body` that show a bearer secret (a refund link's `url`): answered this once, never stored. The stored
   * answer, so a replay, has them null (docs/conventions.md, Idempotency). Not encrypted instead: a key derived from
   * the request is no protection, and the secret is stored only as a hash elsewhere, so it is shown once, as an API
   * key is.
   */
  secrets?: readonly string[];
}

const isStorable = (error: unknown): error is DomainError => error instanceof DomainError && ERROR_HTTP[error.code].status < 500;

/**
 * The HTTP side of an IDEM route (the operation's use case claims the key in its own transaction, use-cases/once.ts):
 * the key and the request's hash, the answer serialized by the route's response schema, the replay's headers.
 */
export class Idempotency {
  constructor(
    private readonly docsBaseUrl: string,
    private readonly metrics: Metrics,
  ) {}

  /** The request's key, as the operation claims it, answering its value as `present` says. */
  once<V>(request: FastifyRequest, reply: FastifyReply, present: (value: V) => Presented): Once<V> {
    const caller = request.caller!;
    return {
      scope: { organizationId: caller.organizationId, mode: caller.mode, key: readIdempotencyKey(request)! },
      requestHash: requestHash(request),
      answer: (value) => {
        const presented = present(value);
        const body = reply.code(presented.status).serialize(presented.body) as string;
        const sent = { status: presented.status, body, withheld: [] };
        const secrets = presented.secrets ?? [];
        if (secrets.length === 0) return { sent, stored: sent };
        const withheld = Object.fromEntries(secrets.map((field) => [field, null]));
        return { sent, stored: { status: presented.status, body: reply.serialize({ ...(presented.body as object), ...withheld }) as string, withheld: secrets } };
      },
      failure: (error): StoredAnswer | null => {
        if (!isStorable(error)) return null;
        const status = ERROR_HTTP[error.code].status;
        return { status, body: JSON.stringify(errorEnvelope(this.docsBaseUrl, error.code, error.message, error.param)), withheld: [] };
      },
      log: reply.log,
    };
  }

  /** Sends the operation's answer; a replay says so in its headers (and names the secret fields it answers null). */
  send(reply: FastifyReply, answer: Answer): FastifyReply {
    if (answer.replayed) {
      reply.header('idempotent-replayed', 'true');
      if (answer.withheld.length > 0) reply.header(WITHHELD_HEADER, answer.withheld.join(', '));
      this.metrics.replayed();
    }
    return sendJsonText(reply.code(answer.status), answer.body);
  }
}
