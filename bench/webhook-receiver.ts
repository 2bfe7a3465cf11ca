import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One delivery the receiver answered. */
export interface Arrival {
  path: string;
  eventId: string;
  /** The event type as stored (`payment_intent.completed`), from the body. */
  type: string;
  relatedTo: string | null;
  /** performance.now() of the runner when the whole request had arrived. */
  at: number;
  /** Rank among every request the receiver answered (0 for the first), to check per-object order. */
  rank: number;
}

/**
 * The endpoint the workers deliver to, in the runner process: an HTTP server on 127.0.0.1 that answers every
 * request 200 with an empty body as soon as it has arrived, keeps connections alive, and counts requests per
 * path and deliveries per event id. It checks no signature: it measures the sender, not a receiver's work.
 */
export class WebhookReceiver {
  /** Requests answered so far, by path. */
  readonly requestsByPath = new Map<string, number>();
  /** Deliveries per event id: above 1 is a duplicate. */
  readonly deliveriesByEventId = new Map<string, number>();
  /** Rank of each event id's first arrival. */
  readonly firstRank = new Map<string, number>();
  private readonly listeners = new Set<(arrival: Arrival) => void>();
  private rank = 0;

  private constructor(
    private readonly server: http.Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    // Node's default (5 s) would close the workers' idle connections between the bench's phases.
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => receiver.handle(request, response));
    return receiver;
  }

  /** Calls `listener` on every arrival from now on; returns the function that stops it. */
  onArrival(listener: (arrival: Arrival) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  close = async (): Promise<void> => {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  };

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(200, { 'content-length': '0' }).end();
      const path = request.url ?? '/';
      this.requestsByPath.set(path, (this.requestsByPath.get(path) ?? 0) + 1);
      let body: { event_id?: string; type?: string; related_to?: string | null };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        body = {};
      }
      const eventId = body.event_id ?? String(request.headers['webhook-id'] ?? '');
      this.deliveriesByEventId.set(eventId, (this.deliveriesByEventId.get(eventId) ?? 0) + 1);
      const rank = this.rank++;
      if (!this.firstRank.has(eventId)) this.firstRank.set(eventId, rank);
      const arrival: Arrival = { path, eventId, type: body.type ?? '', relatedTo: body.related_to ?? null, at, rank };
      for (const listener of this.listeners) listener(arrival);
    });
  }
}
