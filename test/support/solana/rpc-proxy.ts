import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface RpcRequest {
  id: number;
  method: string;
  params: unknown[];
}

interface SignatureEntry {
  signature: string;
  slot: number;
}

interface ListingOptions {
  until?: string;
  before?: string;
  limit?: number;
  minContextSlot?: number;
}

/**
 * A provider in front of the Solana test node (rpc-world.ts), as a watcher meets one: it counts the calls made
 * to it (per method, and the accounts listed), can fail to return given transactions it lists (a node whose
 * ledger lacks them), and can answer as a backend that has reached only slot `lagSlot`: it lists only older
 * signatures, does not know a newer `until` (so lists everything it has, as a node does), and refuses a request
 * whose minContextSlot it has not reached, unless `honoursMinContextSlot` is false (a provider that ignores it).
 */
export async function solanaRpcProxy(upstream: string) {
  const state = {
    calls: [] as { method: string; account?: string }[],
    hiddenTransactions: new Set<string>(),
    lagSlot: null as number | null,
    honoursMinContextSlot: true,
  };

  const forward = async (request: RpcRequest): Promise<{ result?: unknown; error?: unknown }> => {
    const response = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    return (await response.json()) as { result?: unknown; error?: unknown };
  };

  async function lagging(request: RpcRequest): Promise<{ result?: unknown; error?: unknown }> {
    const lagSlot = state.lagSlot!;
    const [account, options = {}] = request.params as [string, ListingOptions];
    if (state.honoursMinContextSlot && options.minContextSlot !== undefined && options.minContextSlot > lagSlot) {
      return { error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: lagSlot } } };
    }
    const everything = await forward({ ...request, params: [account, { commitment: 'finalized', limit: 1000 }] });
    const seen = (everything.result as SignatureEntry[]).filter((entry) => entry.slot <= lagSlot);
    const start = options.before ? seen.findIndex((entry) => entry.signature === options.before) + 1 : 0;
    const end = options.until ? seen.findIndex((entry) => entry.signature === options.until) : -1;
    return { result: seen.slice(start, end === -1 ? undefined : end).slice(0, options.limit ?? 1000) };
  }

  async function answer(request: RpcRequest): Promise<{ result?: unknown; error?: unknown }> {
    state.calls.push({ method: request.method, ...(request.method === 'getSignaturesForAddress' ? { account: request.params[0] as string } : {}) });
    if (request.method === 'getTransaction' && state.hiddenTransactions.has(request.params[0] as string)) return { result: null };
    if (request.method === 'getSignaturesForAddress' && state.lagSlot !== null) return lagging(request);
    return forward(request);
  }

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as RpcRequest;
      void answer(request).then((answered) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...answered }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    /** The calls made since the last `reset`, and the accounts listed. */
    reset() {
      state.calls.length = 0;
    },
    listed: (account: string) => state.calls.filter((c) => c.account === account).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
