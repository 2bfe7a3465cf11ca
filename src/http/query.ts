import { Type } from 'typebox';
import { DomainError } from '../domain/errors.js';

/** `a,b,c` → values, each checked against `allowed`; an unknown value answers `code` naming the parameter. */
export function parseList<T extends string>(
  raw: string | undefined,
  param: string,
  isAllowed: (value: string) => value is T,
  allowedText: string,
  code: 'invalid_request' | 'invalid_type' = 'invalid_request',
): T[] | undefined {
  if (raw === undefined) return undefined;
  const values = raw.split(',').map((v) => v.trim());
  const unknown = values.find((v) => !isAllowed(v));
  if (unknown !== undefined) {
    throw new DomainError(code, `Unknown ${param} "${unknown}". Allowed: ${allowedText}.`, param);
  }
  return values as T[];
}

export const oneOf =
  <T extends string>(allowed: readonly T[]) =>
  (value: string): value is T =>
    (allowed as readonly string[]).includes(value);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A date without a time (`2026-11-30`), which bounds whole days. */
export const isBareDate = (raw: string) => DATE.test(raw);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?$/;
const HAS_ZONE = /(Z|[+-]\d{2}:\d{2})$/;

/** Date rolls 2024-02-30 over to March 1 instead of refusing it; this refuses it. */
function isCalendarDate(yyyyMmDd: string): boolean {
  const [year, month, day] = yyyyMmDd.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * An inclusive bound on created_at: an ISO 8601 date or date-time; without a zone it is UTC. A bare date
 * as the upper bound means the whole of that day.
 */
export function parseBound(raw: string | undefined, param: string, bound: 'lower' | 'upper'): Date | undefined {
  if (raw === undefined) return undefined;
  let text: string;
  if (DATE.test(raw)) text = `${raw}T${bound === 'lower' ? '00:00:00.000' : '23:59:59.999'}Z`;
  else if (DATE_TIME.test(raw)) text = HAS_ZONE.test(raw) ? raw : `${raw}Z`;
  else throw new DomainError('invalid_request', `${param} must be an ISO 8601 date or date-time.`, param);
  const instant = new Date(text);
  if (Number.isNaN(instant.getTime()) || !isCalendarDate(raw.slice(0, 10))) {
    throw new DomainError('invalid_request', `${param} is not a valid date.`, param);
  }
  return instant;
}

/** The `from`/`to` query parameters every dated list accepts (GET /events, GET /transactions). */
export const DateRangeQuery = {
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Inclusive lower bound on created_at: ISO 8601 date or date-time (UTC if no zone).' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'Inclusive upper bound on created_at; a bare date covers that whole day.' })),
};

export function parseDateRange(query: { from?: string; to?: string }): { from: Date | undefined; to: Date | undefined } {
  return { from: parseBound(query.from, 'from', 'lower'), to: parseBound(query.to, 'to', 'upper') };
}
