import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDestination, type Resolve } from '../../../src/providers/webhooks/destination-policy.js';
import { HttpWebhookTransport, type HttpWebhookTransportOptions } from '../../../src/providers/webhooks/http-transport.js';
import { scriptedResolver, unresolvable } from './scripted-resolver.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real receiver on 127.0.0.1 whose behaviour each test swaps; it records connections and requests. */
class Receiver {
  connections = 0;
  readonly received: Received[] = [];
  handler: Handler = (_req, res) => res.end('ok');
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      this.handler(req, res);
    });
  });

  constructor() {
    this.server.on('connection', () => (this.connections += 1));
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const receivers: Receiver[] = [];
const transports: HttpWebhookTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.stop()));
});

async function setUp(options: Partial<HttpWebhookTransportOptions> = {}) {
  const receiver = new Receiver();
  receivers.push(receiver);
  const port = await receiver.start();
  const transport = new HttpWebhookTransport({ timeoutMs: 2000, ...options });
  transports.push(transport);
  return { receiver, port, transport };
}

const post = { headers: { 'content-type': 'application/json' }, body: '{"type":"ping"}' };

describe('the HTTP webhook transport', () => {
  it('POSTs the headers and body verbatim and returns the answer', async () => {
    const { receiver, port, transport } = await setUp();
    receiver.handler = (_req, res) => res.writeHead(204).end();
    const body = '{"id":"evt_1","amount":"12.50","note":"café ☕"}';
    const outcome = await transport.send({
      url: `http://127.0.0.1:${port}/hooks?tag=a`,
      mode: 'test',
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-signature': 'v1,abc=' },
      body,
    });
    expect(outcome).toEqual({ kind: 'response', status: 204, body: '' });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/hooks?tag=a');
    expect(request?.body).toBe(body);
    expect(request?.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-signature': 'v1,abc=' });
  });

  it('sends the configured user-agent unless the request has its own', async () => {
    const { receiver, port, transport } = await setUp({ userAgent: 'connect-payments-webhooks/1' });
    const url = `http://127.0.0.1:${port}/hooks`;
    await transport.send({ url, mode: 'test', ...post });
    await transport.send({ url, mode: 'test', headers: { 'User-Agent': 'custom' }, body: '{}' });
    expect(receiver.received.map((request) => request.headers['user-agent'])).toEqual(['connect-payments-webhooks/1', 'custom']);
  });

  it('answers a redirect with its status instead of following it', async () => {
    const { receiver, port, transport } = await setUp();
    receiver.handler = (req, res) => res.writeHead(req.url === '/hooks' ? 302 : 200, { location: '/elsewhere' }).end();
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post });
    expect(outcome).toEqual({ kind: 'response', status: 302, body: '' });
    expect(receiver.received.map((request) => request.url)).toEqual(['/hooks']);
  });

  it('keeps at most maxResponseBytes of the answer', async () => {
    const { receiver, port, transport } = await setUp();
    receiver.handler = (_req, res) => res.end('x'.repeat(1024 * 1024));
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post });
    expect(outcome).toEqual({ kind: 'response', status: 200, body: 'x'.repeat(4096) });

    const small = new HttpWebhookTransport({ timeoutMs: 2000, maxResponseBytes: 10 });
    transports.push(small);
    receiver.handler = (_req, res) => res.end('0123456789abcdef');
    expect(await small.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post })).toEqual({
      kind: 'response',
      status: 200,
      body: '0123456789',
    });
  });

  it('stops reading at maxResponseBytes, even when the answer never ends', async () => {
    const { receiver, port, transport } = await setUp({ timeoutMs: 1000 });
    receiver.handler = (_req, res) => {
      res.writeHead(200);
      const chunk = 'y'.repeat(16 * 1024);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    };
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post });
    expect(outcome).toEqual({ kind: 'response', status: 200, body: 'y'.repeat(4096) });
  });

  it('times out when the receiver accepts the connection but never answers', async () => {
    const { receiver, port, transport } = await setUp({ timeoutMs: 300 });
    receiver.handler = () => {};
    const started = Date.now();
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post });
    const elapsed = Date.now() - started;
    expect(outcome).toEqual({ kind: 'error', error: 'timed out after 300 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1500);
  });

  it('times out when the answer body never ends (the timeout bounds the whole attempt)', async () => {
    const { receiver, port, transport } = await setUp({ timeoutMs: 300 });
    receiver.handler = (_req, res) => {
      res.writeHead(200);
      res.write('partial');
    };
    const started = Date.now();
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'test', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reports a refused connection without the URL or its query string', async () => {
    const { port, transport } = await setUp();
    await receivers.splice(0)[0]?.stop();
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks?token=s3cret`, mode: 'test', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'connection refused' });
  });

  it('reports a hostname that does not resolve', async () => {
    const { port, transport } = await setUp({ resolve: unresolvable() });
    const outcome = await transport.send({ url: `https://hooks.example.invalid:${port}/hooks`, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'could not resolve hooks.example.invalid' });
  });

  it('test mode allows http to 127.0.0.1 and localhost', async () => {
    const { receiver, port, transport } = await setUp();
    for (const host of ['127.0.0.1', 'localhost']) {
      expect(await transport.send({ url: `http://${host}:${port}/hooks`, mode: 'test', ...post })).toMatchObject({ kind: 'response', status: 200 });
    }
    expect(receiver.received).toHaveLength(2);
  });
});

describe('live mode destinations', () => {
  async function liveSetUp(resolve: Resolve = scriptedResolver(['93.184.216.34'])) {
    return setUp({ resolve, timeoutMs: 1000 });
  }

  it('refuses http without connecting', async () => {
    const { receiver, port, transport } = await liveSetUp();
    const outcome = await transport.send({ url: `http://127.0.0.1:${port}/hooks`, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'live endpoints must use https' });
    expect(receiver.connections).toBe(0);
  });

  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['169.254.169.254', '169.254.169.254 is a link-local address'],
    ['10.20.30.40', '10.20.30.40 is a private address'],
    ['[::ffff:127.0.0.1]', '127.0.0.1 is a loopback address'],
  ])('refuses the IP literal %s without connecting', async (host, reason) => {
    const resolve = scriptedResolver(['93.184.216.34']);
    const { receiver, port, transport } = await liveSetUp(resolve);
    const outcome = await transport.send({ url: `https://${host}:${port}/hooks`, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: `destination refused: ${reason}` });
    expect(receiver.connections).toBe(0);
    expect(resolve.asked).toEqual([]);
  });

  it('checks a hostname in the lookup undici connects with, refusing a loopback answer', async () => {
    // A .invalid name never resolves in DNS: refusing with the injected answer shows undici used the injected lookup.
    const resolve = scriptedResolver(['127.0.0.1']);
    const { receiver, port, transport } = await liveSetUp(resolve);
    const outcome = await transport.send({ url: `https://hooks.example.invalid:${port}/hooks`, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'destination refused: 127.0.0.1 is a loopback address' });
    expect(resolve.asked).toEqual(['hooks.example.invalid']);
    expect(receiver.connections).toBe(0);
  });

  it('refuses a hostname when any of its addresses is blocked', async () => {
    const resolve = scriptedResolver(['93.184.216.34', '10.0.0.7']);
    const { receiver, port, transport } = await liveSetUp(resolve);
    const outcome = await transport.send({ url: `https://hooks.example.invalid:${port}/hooks`, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'destination refused: 10.0.0.7 is a private address' });
    expect(receiver.connections).toBe(0);
  });

  it('defeats DNS rebinding: the answer checked at delivery is the one connected to', async () => {
    // Public when the endpoint is configured, loopback when the delivery connects.
    const resolve = scriptedResolver(['93.184.216.34'], ['127.0.0.1']);
    const { receiver, port, transport } = await liveSetUp(resolve);
    const url = `https://rebind.example.invalid:${port}/hooks`;
    expect(await checkDestination(url, 'live', resolve)).toBeNull();
    const outcome = await transport.send({ url, mode: 'live', ...post });
    expect(outcome).toEqual({ kind: 'error', error: 'destination refused: 127.0.0.1 is a loopback address' });
    // One resolution per step: the delivery made no separate check that a second answer could contradict.
    expect(resolve.asked).toEqual(['rebind.example.invalid', 'rebind.example.invalid']);
    expect(receiver.connections).toBe(0);
  });
});

describe('sandbox deliveries and internal addresses', () => {
  it('a sandbox delivery never connects to a link-local (metadata) address, literal or resolved', async () => {
    const transport = new HttpWebhookTransport({ timeoutMs: 2_000, resolve: scriptedResolver(['169.254.169.254']) });
    try {
      for (const url of ['http://169.254.169.254/latest/meta-data', 'http://metadata.example.com/hooks']) {
        const outcome = await transport.send({ url, mode: 'test', headers: {}, body: '{}' });
        expect(outcome, url).toMatchObject({ kind: 'error', error: expect.stringContaining('169.254.169.254 is a link-local address') });
      }
    } finally {
      await transport.close();
    }
  });
});
