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
