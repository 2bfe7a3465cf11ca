/**
 * Every error code the API can answer with. Clients match on these, so they never change meaning;
 * `http/error-codes.ts` maps each to its HTTP status and `error.type`, and docs/errors.md explains each.
 */
export const ERROR_CODES = [
  'authentication_required',
  'expired_credential',
  'account_pending_approval',
  'forbidden_scope',
  'idempotency_key_required',
  'idempotency_conflict',
  'parameter_missing',
  'parameter_unknown',
  'parameter_invalid',
  'invalid_json',
  'unsupported_media_type',
  'request_too_large',
  'request_uri_too_long',
  'request_header_fields_too_large',
  'request_timeout',
  'invalid_request',
  'catalog_invalid',
  'min_usdt_amount_requires_solana',
  'invalid_payment_intent_id',
  'invalid_type',
  'resource_not_found',
  'route_not_found',
  'method_not_allowed',
  'event_not_found',
  'webhook_endpoint_not_configured',
  'quote_already_used',
  'quote_expired',
  'quote_not_found',
  'insufficient_funds',
  'refund_exceeds_refundable',
  'invalid_state',
  'price_unavailable',
  'rate_limited',
  'internal_error',
  'not_yet_available',
  'provider_unavailable',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A failure the caller can act on: a named code, a human message and, when one input is at fault, its name. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A missing resource, worded alike everywhere; another tenant's resource gets exactly the same answer. */
export const notFound = (what: string, param = 'id') => new DomainError('resource_not_found', `No ${what} with that id.`, param);
