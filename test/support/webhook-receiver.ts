import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { event_id: string; event: string; type: string; livemode: boolean; related_to: string | null; data: Record<string, unknown> };
  at: number;
}

/** What the receiver does with one request: answer a status (after a delay), or never answer. */
export type Behaviour = { status: number; delayMs?: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * A real HTTP receiver on 127.0.0.1 that records every request. `respond` decides each answer (default 200);
 * `waitFor` resolves once `count` requests have arrived.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (request: ReceivedWebhook, index: number) => Behaviour = () => ({ status: 200 });
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedWebhook = { headers: req.headers, body, json: JSON.parse(body), at: Date.now() };
      const index = this.received.push(request) - 1;
      const behaviour = this.respond(request, index);
      for (const waiter of this.waiters.filter((w) => this.received.length >= w.count)) waiter.resolve();
      if (behaviour === 'hang') return;
      setTimeout(() => res.writeHead(behaviour.status, behaviour.headers).end(behaviour.body ?? ''), behaviour.delayMs ?? 0);
    });
  });

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  waitFor(count: number, timeoutMs = 15_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.received.length} of ${count} requests`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  types(): string[] {
    return this.received.map((r) => r.json.type);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
