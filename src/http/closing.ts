import type { FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { sendError } from './error-handler.js';

/**
 * Requests that arrive while the server closes: server.close() stops new connections and ends idle ones, but a
 * connection busy at that moment stays open after its answer (keep-alive), and the client may send its next
 * request on it. Fastify's own answer to those is a body outside the error envelope (its `return503OnClosing`,
 * turned off in app.ts); this answers them with the envelope instead, and closes the connection so that the
 * client's retry opens a new one, to an instance that is not stopping.
 */
export function answerWhileClosing(app: FastifyInstance, docsBaseUrl: string): void {
  let closing = false;
  // Before the listening socket closes: every request that arrives once it is closed is answered here.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    // Node ends the socket after this answer, and the body drain (transport-errors.ts) leaves the header alone.
    reply.raw.shouldKeepAlive = false;
    reply.header('connection', 'close');
    return sendError(reply, docsBaseUrl, new DomainError('service_unavailable', 'The server is shutting down; the request was not processed. Retry it, with the same Idempotency-Key if it had one.'));
  });
}
