import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from '../domain/errors.js';
import { MAX_IDENTIFIER } from '../domain/identifiers.js';

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Uuid = Type.String({ format: 'uuid' });
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * Request strings: every one has a maximum length (the OpenAPI document states it), so no input is
 * unbounded; the limits of the contract (external_ref, description, metadata) are the same values.
 */
export const RequestText = (maxLength: number, options: Record<string, unknown> = {}) => Type.String({ maxLength, ...options });
/** An asset or network code as sent; unknown codes are the catalog's 400, not a schema failure. */
export const CodeText = (description: string) => RequestText(32, { description });
/** An identifier's rule (NFC, no invisible characters) is src/domain/identifiers.ts, applied where the ref is used. */
export const ExternalRefText = (description: string) =>
  RequestText(MAX_IDENTIFIER, {
    description: `${description} Up to ${MAX_IDENTIFIER} characters, compared after NFC normalization; control, format (zero-width, bidi), separator and unassigned characters and edge spaces are refused (docs/conventions.md#identifiers).`,
  });
/**
 * The longest path parameter the router takes (longer is 414): room for an external_ref (255). Ids get
 * their route's own malformed-id answer below that (a contract matter: 404 for events, 400 for intents).
 */
export const MAX_PATH_PARAM = 255;
export const PathId = RequestText(MAX_PATH_PARAM);
/** An amount as sent: a decimal string (preferred) or a JSON number. */
export const AmountInput = (description: string) => Type.Union([RequestText(100), Type.Number()], { description });

/** Timestamps leave the service as ISO 8601 UTC strings with milliseconds. */
export const iso = (date: Date) => date.toISOString();
export const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      type: Type.String({ description: 'Category: authentication_error, permission_error, invalid_request_error, …' }),
      code: Type.Enum(ERROR_CODES, { description: 'Stable code; match on it.' }),
      message: Type.String(),
      param: Type.Union([Type.String(), Type.Null()], { description: 'The input field at fault, if one is.' }),
      doc_url: Type.String(),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'Error' },
);

const ErrorRef = Type.Ref('ErrorEnvelope');

/** The error statuses a route documents, each answered with the error envelope. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorRef]));
}

/** The statuses every authenticated partner route can answer with (contract: 401, 403, 429, 500). */
export const PARTNER_ERRORS = [401, 403, 429, 500] as const;
