import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type Tenant, type TestApp } from './support/app.js';
import { createTenant } from './support/partner.js';

/**
 * Failures around routing, over a real socket (app.inject bypasses Node's HTTP parser and the socket):
 * every one must reach the client as the error envelope.
 */
let t: TestApp;
let tenant: Tenant;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await createTenant(t);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(() => t.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends raw bytes the way a careless client does: everything first (paced, as a slow network would carry
 * it), then reads the answer. A server that closed the socket on unread bytes makes the writes fail here.
 */
function rawRequest(head: string, body: Buffer = Buffer.alloc(0), paceBytes = 64 * 1024): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.on('error', reject);
    const write = (data: Buffer | string) => new Promise<void>((done, fail) => socket.write(data, (error) => (error ? fail(error) : done())));
    socket.on('connect', async () => {
      try {
        await write(head);
        for (let offset = 0; offset < body.length; offset += paceBytes) {
          await write(body.subarray(offset, offset + paceBytes));
          await new Promise((r) => setTimeout(r, 2));
        }
      } catch (error) {
        return reject(error as Error);
      }
      // Only now does this client start reading.
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [headText = '', ...rest] = text.split('\r\n\r\n');
        const [statusLine = '', ...headerLines] = headText.split('\r\n');
        const headers = Object.fromEntries(
          headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
      });
      socket.resume();
    });
  });
}

function expectEnvelope(res: RawResponse, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toContain('application/json');
  const parsed = JSON.parse(res.body) as { error: { code: string; type: string; message: string; doc_url: string } };
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.doc_url).toMatch(new RegExp(`/errors/${code}$`));
  expect(parsed.error.message.length).toBeGreaterThan(0);
}

const oversized = Buffer.from(JSON.stringify({ amount: '10', currencies: ['USDC'], description: 'x'.repeat(2 * 1024 * 1024) }));

describe('an oversized body gets a readable 413', () => {
  it('with Content-Length, to a client that writes the whole body before reading', async () => {
    const head =
      `POST /connect/v1/payment-intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nIdempotency-Key: big-1\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${oversized.length}\r\nConnection: close\r\n\r\n`;
    for (let i = 0; i < 3; i++) expectEnvelope(await rawRequest(head, oversized), 413, 'request_too_large');
  });

  it('chunked, to a client that writes the whole body before reading', async () => {
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < oversized.length; offset += 16 * 1024) {
      const piece = oversized.subarray(offset, offset + 16 * 1024);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    const head =
      `POST /connect/v1/payment-intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nIdempotency-Key: big-2\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
    expectEnvelope(await rawRequest(head, Buffer.concat(chunks)), 413, 'request_too_large');
  });

  it('an early answer (401, before the body is read) reaches a client still writing its body', async () => {
    const head =
      'POST /connect/v1/payment-intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_test_unknownunknownunknownunknown00\r\n' +
      `Idempotency-Key: big-3\r\nContent-Type: application/json\r\nContent-Length: ${oversized.length}\r\nConnection: close\r\n\r\n`;
    expectEnvelope(await rawRequest(head, oversized), 401, 'authentication_required');
  });
});

describe('failures before routing use the envelope', () => {
  it('a 20 KB header is 431 request_header_fields_too_large', async () => {
    const head = `GET /connect/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`;
    expectEnvelope(await rawRequest(head), 431, 'request_header_fields_too_large');
  });

  it('a folded header (obs-fold) is 400 invalid_request', async () => {
    const head = `GET /connect/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nX-Folded: a\r\n  b\r\n\r\n`;
    expectEnvelope(await rawRequest(head), 400, 'invalid_request');
  });

  it('a path parameter over 255 characters is 414 request_uri_too_long, with a request id', async () => {
    const head = `GET /connect/v1/payment-intents/${'a'.repeat(256)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nConnection: close\r\n\r\n`;
    const res = await rawRequest(head);
    expectEnvelope(res, 414, 'request_uri_too_long');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('a path with broken percent-encoding is 400 invalid_request', async () => {
    const head = `GET /connect/v1/payment-intents/%zz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nConnection: close\r\n\r\n`;
    expectEnvelope(await rawRequest(head), 400, 'invalid_request');
  });
});

describe('repeated credential headers (Node would keep the first Authorization and join Idempotency-Keys)', () => {
  it('two Authorization headers are 400 invalid_request naming the header, even when both carry the key', async () => {
    const head = `GET /connect/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nauthorization: Bearer ${tenant.key}\r\nConnection: close\r\n\r\n`;
    const res = await rawRequest(head);
    expectEnvelope(res, 400, 'invalid_request');
    expect(JSON.parse(res.body).error.param).toBe('Authorization');
  });

  it('two Idempotency-Key headers are 400 invalid_request naming the header, and nothing is stored under either', async () => {
    const body = Buffer.from(JSON.stringify({ amount: '10', currencies: ['USDC'] }));
    const head =
      `POST /connect/v1/payment-intents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.key}\r\nIdempotency-Key: first\r\n` +
      `Idempotency-Key: second\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const res = await rawRequest(head, body);
    expectEnvelope(res, 400, 'invalid_request');
    expect(JSON.parse(res.body).error.param).toBe('Idempotency-Key');
    expect(await t.db.query("SELECT 1 FROM idempotency_records WHERE idempotency_key IN ('first', 'second', 'first, second')")).toHaveLength(0);
  });

  it('the operator API refuses two Authorization headers alike', async () => {
    const head = `GET /admin/v1/organizations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nConnection: close\r\n\r\n`;
    const res = await rawRequest(head);
    expectEnvelope(res, 400, 'invalid_request');
    expect(JSON.parse(res.body).error.param).toBe('Authorization');
  });
});
