import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { ListenAddress } from '../config.js';
import type { Metrics } from './metrics.js';

export interface MetricsListener {
  /** Where the metrics are, with the port picked when the configured one is 0. */
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` without a token, on an address of its own (CONNECT_METRICS_ADDRESS): for a scraper on a
 * private network, and for `connect-payments worker`, which serves no other HTTP. Anyone who reaches the
 * address reads the metrics, so it belongs on an interface only the scraper reaches.
 */
export async function serveMetrics(metrics: Metrics, address: ListenAddress, log: FastifyBaseLogger): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics.\n');
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      (err: unknown) => {
        log.error({ err }, 'collecting metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Collecting metrics failed.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
