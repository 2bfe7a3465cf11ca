import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../domain/errors.js';
import { ERROR_HTTP, errorEnvelope } from './error-codes.js';
import { MAX_PATH_PARAM } from './schemas.js';

/**
 * Failures that happen before or around Fastify's routing, answered with the same error envelope as every
 * other failure: HTTP the parser refuses (431, 400), paths the router refuses (414, 400), and a body the
 * client is still sending when the answer is ready (413, 401 …).
 */

/** How much of an unwanted body is read and thrown away so that its sender can read the answer. */
const DRAIN_CAP_BYTES = 8 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 5_000;

function drain(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  if (Number(raw.headers['content-length']) > DRAIN_CAP_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', onEnd).off('error', onEnd).off('close', onEnd);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_CAP_BYTES) finish(false);
    };
    const onEnd = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), DRAIN_TIMEOUT_MS);
    raw.on('data', onData).on('end', onEnd).on('error', onEnd).on('close', onEnd);
    raw.resume();
  });
}

/**
 * A client that writes its whole body before reading would see a reset connection, not the answer, if the
 * server closed the socket on unread bytes (Fastify does after a 413; so does Node after any early answer).
 * The rest of the body is read first, up to a cap; then the connection may even stay open, unless it is to end
 * for another reason (the client asked, or the server is closing: closing.ts), when its `Connection: close` stays.
 */
export function installBodyDrain(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // `complete` is a boolean on real sockets only (injected test requests have none, and need no draining).
    if (request.raw.complete !== false) return done(null, payload);
    void drain(request.raw).then((drained) => {
      if (drained && reply.raw.shouldKeepAlive) reply.removeHeader('connection');
      else reply.header('connection', 'close');
      done(null, payload);
    });
  });
}

function parserFailure(code: string | undefined): { status: number; code: ErrorCode; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: 'request_timeout', message: 'The request headers and body did not all arrive in time.' };
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: 'request_header_fields_too_large', message: 'The request headers are larger than 16 KiB.' };
  }
  return { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP/1.1 (e.g. a folded header or a malformed header name).' };
}

/** Node's HTTP parser refused the request: only a socket exists, so the answer is written on it by hand. */
export function clientErrorHandler(docsBaseUrl: string) {
  return function onClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const failure = parserFailure(error.code);
      const body = JSON.stringify(errorEnvelope(docsBaseUrl, failure.code, failure.message, null));
      socket.write(
        `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    this.log.debug({ err: error }, 'client error');
    socket.destroy(error);
  };
}

/** The router refused the path (a parameter over 100 characters, broken percent-encoding). */
export function frameworkErrors(docsBaseUrl: string) {
  return function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    // No hook ran for this request, so the request id is set here.
    reply.header('x-request-id', request.id);
    const [code, message]: [ErrorCode, string] =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? ['request_uri_too_long', `A path parameter is longer than ${MAX_PATH_PARAM} characters.`]
        : error.code === 'FST_ERR_BAD_URL'
          ? ['invalid_request', 'The request path is not validly percent-encoded.']
          : ['internal_error', 'Something went wrong on our side.'];
    if (code === 'internal_error') request.log.error({ err: error }, 'framework error');
    void reply.code(ERROR_HTTP[code].status).send(errorEnvelope(docsBaseUrl, code, message, null));
  };
}
