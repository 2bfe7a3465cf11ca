import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, DOCS_BASE, startTestApp } from './support/app.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether the request went on a connection an earlier request had opened (kept alive). */
  reusedSocket: boolean;
  socket: Socket;
}

function answerOf(request: http.ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      const socket = res.socket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, reusedSocket: request.reusedSocket, socket }));
    });
  });
}

/**
 * A server that has started closing, with one kept-alive connection still open: a request was in flight on it when
 * close() was called (its body still arriving), so the server kept it; `closed` settles once that connection is gone.
 */
async function closingWithOpenConnection() {
  const t = await startTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const target = { host: '127.0.0.1', port };

  // An idle kept-alive connection: the server ends it when it stops listening, which tells this test when that is.
  const idle = await answerOf(http.request({ ...target, agent: new http.Agent({ keepAlive: true }), path: '/livez' }).end());
  const stoppedListening = once(idle.socket, 'close');

  // A request still sending its body when the server starts closing: its connection is busy, so it stays open.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ name: 'Acme' });
  const reading = new Promise((resolve) => t.app.server.once('request', (req: http.IncomingMessage) => req.once('resume', resolve)));
  const busy = http.request({ ...target, agent, ...createOrganization(body) });
  const busyAnswer = answerOf(busy);
  busy.write(body.slice(0, 4));
  await reading;
  const closed = t.app.close();
  await stoppedListening;
  busy.end(body.slice(4));
  expect((await busyAnswer).status).toBe(201);
  return { t, target, agent, closed };
}

const createOrganization = (body: string) => ({
  method: 'POST',
  path: '/admin/v1/organizations',
  headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
});

const SHUTTING_DOWN = {
  error: {
    type: 'api_error',
    code: 'service_unavailable',
    message: expect.stringContaining('shutting down'),
    param: null,
    doc_url: `${DOCS_BASE}/errors/service_unavailable`,
  },
};

describe('shutting down', () => {
  it('a request on a kept-alive connection while the server closes is 503 service_unavailable in the envelope, with a request id and Connection: close', async () => {
    const { t, target, agent, closed } = await closingWithOpenConnection();

    // The next request on that connection.
    const answer = await answerOf(http.request({ ...target, agent, path: '/connect/v1/health' }).end());
    expect(answer.reusedSocket).toBe(true);
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toContain('application/json');
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['x-request-id']).toMatch(/^req_\w{26}$/);
    expect(JSON.parse(answer.body)).toEqual(SHUTTING_DOWN);
    // That answer closed the last connection: the server has closed.
    await closed;
    await t.close();
  });

  it('the answer while closing keeps Connection: close when it was given before the request\'s body arrived (the body is read first)', async () => {
    const { t, target, agent, closed } = await closingWithOpenConnection();

    // The next request on that connection sends its headers, and its body only once the server has answered it.
    const body = JSON.stringify({ name: 'Late' });
    const late = http.request({ ...target, agent, ...createOrganization(body) });
    const lateAnswer = answerOf(late);
    late.flushHeaders();
    const answered = new Promise((resolve) => t.app.server.once('request', (_req, res: http.ServerResponse) => res.once('finish', resolve)));
    const bodyRead = new Promise((resolve) => t.app.server.once('request', (req: http.IncomingMessage) => req.once('resume', resolve)));
    await bodyRead;
    late.end(body);
    await answered;
    const answer = await lateAnswer;
    expect(answer.reusedSocket).toBe(true);
    expect(answer.status).toBe(503);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual(SHUTTING_DOWN);
    await closed;
    await t.close();
  });
});
