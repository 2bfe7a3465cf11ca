import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How one JSON-RPC request is answered: by the node itself (`fresh`), or as a backend `behind` blocks behind its
 * head would answer it.
 */
export type Backend = 'fresh' | { behind: number };

export interface LaggingRpc {
  url: string;
  /** Picks the backend of each request by its method and parameters; `fresh` for all makes it one consistent node again. */
  route: (method: string, params: readonly unknown[]) => Backend;
  /** How many requests each kind of backend answered. */
  readonly counts: { fresh: number; lagging: number };
  close(): Promise<void>;
}

interface Call {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown[];
}

type Answer = { result: unknown } | { error: { code: number; message: string } };

const hex = (n: bigint) => `0x${n.toString(16)}`;
/** What geth says of a block it does not have. */
const unknownBlock: Answer = { error: { code: -32000, message: 'header not found' } };

/**
 * A load-balanced endpoint in front of `target` (an anvil): each request is served by the node itself or by a
 * backend that lags it by some blocks, as `route` says, the way hosted RPC providers answer. A lagging backend
 * at height H = head − behind answers as if the chain ended at H: its head is H; blocks, logs, receipts and
 * transactions above H are unknown to it (null, or nothing, or `header not found` where a node must refuse:
 * state at a block it lacks, logs by the hash of a block it lacks); state at `latest` or `pending` is as of H;
 * ranges of logs end at H (as geth clamps them). Broadcasts go through: a lagging node still relays. Only
 * loopback traffic: it listens on 127.0.0.1 and forwards to the local anvil.
 */
export async function startLaggingRpc(target: string, route: LaggingRpc['route'] = () => 'fresh'): Promise<LaggingRpc> {
  const counts = { fresh: 0, lagging: 0 };
  const upstream = async (method: string, params: unknown[] = []): Promise<Answer> => {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const { result, error } = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
    return error ? { error } : { result };
  };
  const resultOf = async (method: string, params: unknown[] = []): Promise<unknown> => {
    const answer = await upstream(method, params);
    if ('error' in answer) throw new Error(answer.error.message);
    return answer.result;
  };

  /** Where a block tag or number stands for the lagging backend: its number, or null above its height. */
  const blockAt = (tag: unknown, height: bigint): bigint | null => {
    if (tag === 'latest' || tag === 'pending' || tag === 'safe' || tag === 'finalized' || tag === undefined) return height;
    if (tag === 'earliest') return 0n;
    if (typeof tag === 'object' && tag !== null && 'blockHash' in tag) return null;
    const number = BigInt(tag as string);
    return number <= height ? number : null;
  };
  const above = (blockNumber: unknown, height: bigint) => typeof blockNumber === 'string' && BigInt(blockNumber) > height;

  async function lagging(call: Call, behind: number): Promise<Answer> {
    const head = BigInt((await resultOf('eth_blockNumber')) as string);
    const height = head - BigInt(behind) < 0n ? 0n : head - BigInt(behind);
    const params = call.params ?? [];
    switch (call.method) {
      case 'eth_blockNumber':
        return { result: hex(height) };
      case 'eth_getBlockByNumber': {
        const number = blockAt(params[0], height);
        return number === null ? { result: null } : upstream(call.method, [hex(number), params[1]]);
      }
      case 'eth_getBlockByHash': {
        const block = (await resultOf(call.method, params)) as { number: string } | null;
        return { result: block && !above(block.number, height) ? block : null };
      }
      case 'eth_getLogs': {
        const filter = params[0] as { blockHash?: string; fromBlock?: string; toBlock?: string };
        if (filter.blockHash) {
          const block = (await resultOf('eth_getBlockByHash', [filter.blockHash, false])) as { number: string } | null;
          return !block || above(block.number, height) ? { error: { code: -32000, message: 'unknown block' } } : upstream(call.method, params);
        }
        const from = blockAt(filter.fromBlock ?? 'latest', height);
        if (from === null) return { result: [] };
        const to = blockAt(filter.toBlock ?? 'latest', height) ?? height;
        return upstream(call.method, [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }]);
      }
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash': {
        const found = (await resultOf(call.method, params)) as { blockNumber: string | null } | null;
        // A transaction mined above its height is unknown to it; one in the pool (no block) it may hold.
        return { result: found && !above(found.blockNumber, height) ? found : null };
      }
      case 'eth_getTransactionCount':
      case 'eth_getBalance':
      case 'eth_getCode':
      case 'eth_call':
      case 'eth_estimateGas': {
        const index = call.method === 'eth_call' || call.method === 'eth_estimateGas' ? 1 : params.length - 1;
        const number = blockAt(params[index], height);
        if (number === null) return unknownBlock;
        const moved = [...params];
        moved[index] = hex(number);
        return upstream(call.method, moved);
      }
      default:
        return upstream(call.method, params);
    }
  }

  const answer = async (call: Call): Promise<object> => {
    const backend = proxy.route(call.method, call.params ?? []);
    if (backend === 'fresh') counts.fresh++;
    else counts.lagging++;
    const outcome = backend === 'fresh' ? await upstream(call.method, call.params) : await lagging(call, backend.behind);
    return { jsonrpc: '2.0', id: call.id, ...outcome };
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Call | Call[];
      const answered = Array.isArray(body) ? Promise.all(body.map(answer)) : answer(body);
      answered.then(
        (result) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
        () => response.socket?.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: LaggingRpc = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    route,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
