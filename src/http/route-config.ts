import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Caller } from '../domain/access.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Scope } from '../domain/scopes.js';

/** What each route declares about itself; the auth, idempotency and docs layers read it. */
export interface RouteContract {
  /** Scope the key needs (none for /health and /capabilities). */
  scope?: Scope;
  /** Moves or can move funds (documentation and OpenAPI `x-fund-moving`). */
  fundMoving?: boolean;
  /** IDEM in the contract: `Idempotency-Key` is required and replays are served from the store. */
  idempotent?: boolean;
  /** Works whatever the organization's status (GET /health). */
  anyOrganizationStatus?: boolean;
  /** A /test helper: invisible (404) to live keys. */
  sandboxOnly?: boolean;
  /**
   * The error codes particular to this route (the OpenAPI document lists them beside the ones every route of
   * its kind can answer: authentication, scope, rate limit, validation, idempotency).
   */
  errors?: ErrorCode[];
  /** The request body may be left out altogether (the OpenAPI document marks it optional). */
  optionalBody?: boolean;
  /** Registered ahead of its implementation: 501 whatever the request carries (no 422 for its query). */
  notYetAvailable?: boolean;
  /** Points of the key's `rate_limit_rps` budget a request costs, when not 1 (a statement: thousands of rows, streamed). */
  cost?: number;
}

/** The Fastify instance routes and pages register on: TypeBox types their handlers from their schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RouteContract {}
  interface FastifyRequest {
    caller: Caller | null;
  }
}
