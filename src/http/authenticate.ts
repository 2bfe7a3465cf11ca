import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkAuthorization, checkCredential, type Caller } from '../domain/access.js';
import { hashApiKey, parseApiKey } from '../domain/api-keys.js';
import type { Clock } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import { sandboxRouteNotFound } from './error-handler.js';
import { IDEMPOTENCY_HEADER, readIdempotencyKey } from './idempotency.js';
import type { AuthFailureLimiter } from './auth-failures.js';
import type { CallerCache } from './caller-cache.js';
import { enforce, type KeyRateLimiter } from './rate-limit.js';
import { requestCost } from './request-cost.js';
import { refuseDuplicatedHeaders } from './request-guards.js';

/** RFC 7235: the scheme is case-insensitive. */
const BEARER = /^Bearer ([^\s]+)$/i;

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  return header ? (BEARER.exec(header)?.[1] ?? null) : null;
}

const KEY_FORMAT = '"Authorization: Bearer sk_test_…" (sandbox) or "Authorization: Bearer sk_live_…" (live)';

/**
 * Same code for every 401 of a bad header, as the contract says; the message tells the caller which of the
 * two mistakes it made. Whether a well-formed key was ever issued is never told (see checkCredential).
 */
const authenticationRequired = (request: FastifyRequest) =>
  new DomainError(
    'authentication_required',
    request.headers.authorization === undefined
      ? `The Authorization header is missing. Send your API key as ${KEY_FORMAT}.`
      : `The Authorization header is malformed: expected ${KEY_FORMAT}, the key being sk_test_ or sk_live_ and 32 or more letters and digits.`,
  );

/** Counts a failed authentication against the client's address, then fails (429 instead once it is locked out). */
async function failed(failures: AuthFailureLimiter, request: FastifyRequest, error: DomainError): Promise<never> {
  await failures.check(request);
  await failures.record(request);
  throw error;
}

/** The caller, if its key is usable now; otherwise the failure is counted and thrown. */
async function verified(caller: Caller | null, now: Date, failures: AuthFailureLimiter, request: FastifyRequest): Promise<Caller> {
  try {
    checkCredential(caller, now);
    return caller;
  } catch (error) {
    return failed(failures, request, error as DomainError);
  }
}

/**
 * A locked-out address is still served with a valid key, cached or not; its keys that were never issued (or
 * are revoked) get 429 without a database query, so a flood of made-up keys costs nothing.
 */
async function lookUp(callers: CallerCache, failures: AuthFailureLimiter, request: FastifyRequest, keyHash: string): Promise<Caller | null> {
  if (!callers.mayBeIssued(keyHash)) await failures.check(request);
  return callers.find(keyHash);
}

/**
 * The partner API's gate, in the contract's order: duplicated credential headers (400), header format (401),
 * Idempotency-Key presence on IDEM routes (400, decided before any storage is touched), key lookup (401, or
 * 429 once this address has failed too often), rate limit (429), organization status and scope (403). A live
 * key on a /test route is answered as if the route did not exist.
 */
export function partnerAuthentication(callers: CallerCache, limiter: KeyRateLimiter, failures: AuthFailureLimiter, clock: Clock) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const contract = request.routeOptions.config;
    refuseDuplicatedHeaders(request, ['Authorization', IDEMPOTENCY_HEADER]);
    const token = bearerToken(request);
    const claimedMode = token ? parseApiKey(token) : null;
    if (contract.sandboxOnly && claimedMode === 'live') throw sandboxRouteNotFound(request);
    if (!token || !claimedMode) return failed(failures, request, authenticationRequired(request));
    if (contract.idempotent && readIdempotencyKey(request) === null) {
      throw new DomainError(
        'idempotency_key_required',
        `This route requires an ${IDEMPOTENCY_HEADER} header (a fresh UUID per new operation).`,
        IDEMPOTENCY_HEADER,
      );
    }
    const caller = await verified(await lookUp(callers, failures, request, hashApiKey(token)), clock.now(), failures, request);

    enforce(reply, await limiter.consume(caller.keyId, caller.rateLimitRps, requestCost(request, caller.rateLimitRps)), 'this key');

    checkAuthorization(caller, contract);
    request.caller = caller;
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The operator API's gate: one shared bearer token, compared in constant time before anything else, so the
 * right token is served even from an address locked out by wrong ones; failures count per address.
 */
export function adminAuthentication(adminToken: string, failures: AuthFailureLimiter) {
  const expected = digest(adminToken);
  return async function authenticateOperator(request: FastifyRequest): Promise<void> {
    refuseDuplicatedHeaders(request, ['Authorization']);
    const token = bearerToken(request);
    if (!token || !timingSafeEqual(digest(token), expected)) {
      return failed(failures, request, new DomainError('authentication_required', 'Send the operator token as "Authorization: Bearer <CONNECT_ADMIN_TOKEN>".'));
    }
  };
}
