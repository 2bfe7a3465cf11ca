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
