import { stdSerializers } from 'pino';
import { withoutUrls } from './domain/text.js';

/** Never logged: credentials (the dashboard's session cookie too), idempotency keys, webhook signing secrets. */
export const LOG_REDACTIONS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'key',
  '*.key',
  'adminToken',
  'secret',
  '*.secret',
  'previous_secret',
  '*.previous_secret',
];

/** A refund link's token is the capability to give a refund address: its path is logged without it. */
const REFUND_LINK_TOKEN = /(\/pay\/refund\/)[^/?#]+/;

interface LoggedRequest {
  method: string;
  url: string;
  host: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

/** Fastify's own request fields, the URL without a refund link's token. */
export function requestLogFields(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url.replace(REFUND_LINK_TOKEN, '$1[redacted]'),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Pino options for a process's own log: pretty, coloured lines for a person at a terminal; JSON lines (pino's
 * default) for everything else, which log collectors parse. pino-pretty runs in a worker thread, off the
 * request path.
 */
export function terminalLogging(stream: { isTTY?: boolean } = process.stdout): Record<string, unknown> {
  if (!stream.isTTY) return {};
  return {
    transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
  };
}

/** Every string in `value` without URLs; plain objects and arrays copied, anything else (a Date, a number) kept. */
function urlFree(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutUrls(value);
  if (Array.isArray(value)) return depth > 8 ? [] : value.map((item) => urlFree(item, depth + 1));
  const proto = value !== null && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return value;
  return depth > 8 ? {} : Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, urlFree(item, depth + 1)]));
}

/**
 * Serializers for the fields that carry what a failure said (an error, a provider's reason): every URL in them is
 * dropped, whatever threw. An RPC client's error names its endpoint, and providers put API keys in its path or
 * query; so does a database driver's connection string. Every process logger has them (the server's, the worker's),
 * so no error logged by a request or a background job can carry one.
 */
type SerializedError = ReturnType<typeof stdSerializers.err>;
/** pino's own error serializer (message and stack with their causes, own fields), then without URLs; anything else as a field. */
function urlFreeError(error: Error): SerializedError {
  const serialized: unknown = stdSerializers.err(error);
  return urlFree(serialized !== null && typeof serialized === 'object' ? { ...serialized } : serialized) as SerializedError;
}

const urlFreeField = (value: unknown) => (value instanceof Error ? urlFreeError(value) : urlFree(value));

export const URL_FREE_SERIALIZERS = { err: urlFreeError, error: urlFreeField, reason: urlFreeField };
