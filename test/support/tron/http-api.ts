import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a Tron node's HTTP API, answering the one call the watcher makes (`/wallet/gettransactionbyid`)
 * with the contract type a test gave the transaction: anvil serves JSON-RPC only, and every transaction it mines
 * is a TRX transfer unless the test says it stands for a TRC-10 one.
 */
export interface FakeTronHttpApi {
  url: string;
  /** Transaction id (bare hex) → contract type (null: unknown to this node, answered `{}`); TransferContract when unset. */
  kinds: Map<string, string | null>;
  /** The ids asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startFakeTronHttpApi(): Promise<FakeTronHttpApi> {
  const kinds = new Map<string, string | null>();
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/wallet/gettransactionbyid') {
        res.writeHead(404).end();
        return;
      }
      const { value } = JSON.parse(body) as { value: string };
      asked.push(value);
      const kind = kinds.has(value) ? kinds.get(value) : 'TransferContract';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(kind === null ? {} : { txID: value, raw_data: { contract: [{ type: kind }] } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, kinds, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
