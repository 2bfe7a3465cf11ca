import type { ErrorCode } from '../domain/errors.js';
import { ERROR_HTTP } from './error-codes.js';
import type { RouteContract } from './route-config.js';

interface RouteSchema {
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
}

/**
 * The error codes an operation can answer, by HTTP status: those every route of its kind can answer (the
 * gate, validation, idempotency) and those its route declares as its own (`config.errors`).
 */
export function errorCodesOf(api: 'partner' | 'admin', contract: RouteContract, schema: RouteSchema): Record<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>(['authentication_required', 'rate_limited', 'internal_error']);
  if (api === 'partner') {
    codes.add('expired_credential');
    if (!contract.anyOrganizationStatus) codes.add('account_pending_approval');
    if (contract.scope) codes.add('forbidden_scope');
  }
  if (contract.notYetAvailable) {
    codes.add('not_yet_available');
  } else {
    // Unknown query parameters are refused on every partner route (docs/conventions.md).
    if (api === 'partner' || schema.querystring) codes.add('parameter_unknown');
    if (schema.querystring || schema.body || schema.params) codes.add('invalid_request');
    if (schema.body) for (const code of ['parameter_missing', 'parameter_invalid', 'invalid_json'] as const) codes.add(code);
    if (contract.idempotent) codes.add('idempotency_key_required').add('idempotency_conflict');
    if (contract.sandboxOnly) codes.add('route_not_found');
    if (api === 'admin' && schema.params) codes.add('resource_not_found');
    for (const code of contract.errors ?? []) codes.add(code);
  }
  const byStatus: Record<number, ErrorCode[]> = {};
  for (const code of codes) (byStatus[ERROR_HTTP[code].status] ??= []).push(code);
  return byStatus;
}
