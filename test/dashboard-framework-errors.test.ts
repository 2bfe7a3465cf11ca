import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/http/app.js';
import type { App } from '../src/http/route-config.js';
import { ADMIN_TOKEN, startTestApp, workerSerializers, type TestApp } from './support/app.js';
import { signInOperator, type Operator } from './support/dashboard.js';

let t: TestApp;
let operator: Operator;
/** An app that logs (at debug) into `lines` and listens on a real socket, for the client that gives up. */
let logged: App;
let port: number;
const lines: Array<{ level: number; msg?: string; err?: { code?: string } }> = [];

beforeAll(async () => {
  t = await startTestApp();
  operator = await signInOperator(t);
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean).map((line) => JSON.parse(line) as (typeof lines)[number]));
      done();
    },
  });
  logged = await buildApp({ ...t.ctx, config: { ...t.ctx.config, logLevel: 'debug', requestTimeoutMs: 60_000 } }, { adminToken: ADMIN_TOKEN, logger: { stream }, serializers: workerSerializers() });
  await logged.listen({ host: '127.0.0.1', port: 0 });
  port = (logged.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await logged.close();
  await t.close();
});

const post = (url: string, payload: string | Buffer, contentType: string, cookie?: string) =>
  t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType, ...(cookie ? { cookie } : {}) } });

function expectPage(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
  expect(res.body).toContain('<!doctype html>');
}

describe('dashboard: bodies the framework refuses are 4xx pages, never 500', () => {
  it('a text/plain body posted to the sign-in form is a 415 page', async () => {
    expectPage(await post('/admin/sign-in', 'token=x', 'text/plain'), 415);
  });

  it('a multipart body posted to a signed-in form is a 415 page', async () => {
    const body = '--b\r\nContent-Disposition: form-data; name="status"\r\n\r\nactive\r\n--b--\r\n';
    expectPage(await post('/admin/sign-out', body, 'multipart/form-data; boundary=b', operator.cookie), 415);
  });

  it('invalid JSON posted to the sign-in form is a 400 page', async () => {
    expectPage(await post('/admin/sign-in', '{"token":', 'application/json'), 400);
  });

  it('a form body over the dashboard limit is a 413 page, signed in or not', async () => {
    const big = `token=${'a'.repeat(32 * 1024)}`;
    expectPage(await post('/admin/sign-in', big, 'application/x-www-form-urlencoded'), 413);
    expectPage(await post('/admin/sign-out', big, 'application/x-www-form-urlencoded', operator.cookie), 413);
  });
});

describe('dashboard: a client that gives up is not a server error', () => {
  it('a client that abandons its form body half-way is logged at info, never at error level', async () => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('POST /admin/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken=');
    await vi.waitUntil(() => lines.some((line) => line.msg === 'incoming request'));
    socket.destroy();
    await closed;
    // The abort reaches the app as an error on the request stream.
    await vi.waitUntil(() => lines.some((line) => line.err?.code === 'ECONNRESET'));
    expect(lines.find((line) => line.err?.code === 'ECONNRESET')!.level).toBeLessThanOrEqual(30);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
