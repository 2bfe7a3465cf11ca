import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

const REQUEST_TIMEOUT_MS = 1_000;

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

/** A client that sends the start of a request, then one more byte now and then, for as long as the server lets it. */
function dribble(start: string): { closed: Promise<string>; stop: () => void } {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.on('error', () => undefined);
  socket.write(start);
  const timer = setInterval(() => socket.write('a'), 200);
  return {
    closed: new Promise((resolve) => socket.on('close', () => resolve(answer))),
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('slow clients', () => {
  it('a body dribbled a byte at a time is cut off once CONNECT_REQUEST_TIMEOUT_MS has passed, while other clients are served', async () => {
    const slow = dribble('POST /admin/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n');
    try {
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
      const answer = await slow.closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { code: 'request_timeout' } });
    } finally {
      slow.stop();
    }
  });

  it('headers dribbled a byte at a time are cut off alike', async () => {
    const slow = dribble('GET /livez HTTP/1.1\r\nX-Slow: ');
    try {
      expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    } finally {
      slow.stop();
    }
  });
});
