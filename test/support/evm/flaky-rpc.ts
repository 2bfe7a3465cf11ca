import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long a delayed request waits before it is forwarded: long enough to reorder it behind others. */
const DELAY_MS = 150;

/** What the proxy does to one JSON-RPC request. */
export type Fault = 'pass' | 'delay' | 'drop-request' | 'drop-answer' | 'hang';

export interface FlakyRpc {
  url: string;
  /** Decides each request's fate; `pass` for all restores a healthy endpoint. */
  decide: (method: string) => Fault;
  /** Requests held by `hang` right now (answered never; the client's timeout ends them). */
  readonly hanging: number;
  /** How many requests met each fault. */
  readonly counts: Record<Fault, number>;
  close(): Promise<void>;
}

/** A seeded generator (mulberry32): the same seed gives the same faults, so a failing run can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A JSON-RPC endpoint in front of `target` (an anvil) that delays requests, loses them before they arrive, loses
 * answers after the node acted on them (the case that makes a broadcast's outcome unknown), or holds them
 * unanswered, as `decide` says. Only loopback traffic: it listens on 127.0.0.1 and forwards to the local anvil.
 */
export async function startFlakyRpc(target: string, decide: FlakyRpc['decide'] = () => 'pass'): Promise<FlakyRpc> {
  const counts: Record<Fault, number> = { pass: 0, delay: 0, 'drop-request': 0, 'drop-answer': 0, hang: 0 };
  const held = new Set<http.ServerResponse>();
  const proxy: FlakyRpc = {
    url: '',
    decide,
    get hanging() {
      return held.size;
    },
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const method = (JSON.parse(body) as { method?: string }).method ?? '';
      const fault = proxy.decide(method);
      counts[fault]++;
      if (fault === 'drop-request') return void response.socket?.destroy();
      if (fault === 'hang') {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      const forward = () =>
        fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
          async (answer) => {
            const text = await answer.text();
            if (fault === 'drop-answer') return void response.socket?.destroy();
            response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
          },
          () => response.socket?.destroy(),
        );
      if (fault === 'delay') setTimeout(forward, DELAY_MS);
      else void forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
