import type { ErrorCode } from '../domain/errors.js';

export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'invalid_request_error'
  | 'idempotency_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error';

/** The one place that says which HTTP status and `error.type` each code answers with. */
export const ERROR_HTTP: Record<ErrorCode, { status: number; type: ErrorType }> = {
  authentication_required: { status: 401, type: 'authentication_error' },
  expired_credential: { status: 401, type: 'authentication_error' },
  account_pending_approval: { status: 403, type: 'permission_error' },
  forbidden_scope: { status: 403, type: 'permission_error' },
  idempotency_key_required: { status: 400, type: 'invalid_request_error' },
  idempotency_conflict: { status: 409, type: 'idempotency_error' },
  parameter_missing: { status: 422, type: 'invalid_request_error' },
  parameter_unknown: { status: 422, type: 'invalid_request_error' },
  parameter_invalid: { status: 422, type: 'invalid_request_error' },
  invalid_json: { status: 400, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  request_too_large: { status: 413, type: 'invalid_request_error' },
  request_uri_too_long: { status: 414, type: 'invalid_request_error' },
  request_header_fields_too_large: { status: 431, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  invalid_request: { status: 400, type: 'invalid_request_error' },
  catalog_invalid: { status: 400, type: 'invalid_request_error' },
  min_usdt_amount_requires_solana: { status: 400, type: 'invalid_request_error' },
  invalid_payment_intent_id: { status: 400, type: 'invalid_request_error' },
  invalid_type: { status: 400, type: 'invalid_request_error' },
  resource_not_found: { status: 404, type: 'not_found_error' },
  route_not_found: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  event_not_found: { status: 404, type: 'not_found_error' },
  webhook_endpoint_not_configured: { status: 400, type: 'invalid_request_error' },
  quote_already_used: { status: 409, type: 'invalid_request_error' },
  quote_expired: { status: 400, type: 'invalid_request_error' },
  quote_not_found: { status: 404, type: 'not_found_error' },
  insufficient_funds: { status: 400, type: 'invalid_request_error' },
  refund_exceeds_refundable: { status: 400, type: 'invalid_request_error' },
  invalid_state: { status: 409, type: 'invalid_request_error' },
  price_unavailable: { status: 503, type: 'api_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  not_yet_available: { status: 501, type: 'api_error' },
  provider_unavailable: { status: 503, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
};

export interface ErrorEnvelope {
  error: { type: ErrorType; code: ErrorCode; message: string; param: string | null; doc_url: string };
}

export function errorEnvelope(docsBaseUrl: string, code: ErrorCode, message: string, param: string | null): ErrorEnvelope {
  return {
    error: { type: ERROR_HTTP[code].type, code, message, param, doc_url: `${docsBaseUrl}/errors/${code}` },
  };
}
