import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import type { SerializerCache } from '../http/serializers.js';
import { readRunningServer, readStoredAdminToken, type RunningServer } from '../operator-files.js';
import type { Database } from '../store/database.js';

/** One operator API request (`path` relative to /admin/v1): every CLI verb but `worker` is one. */
export interface AdminCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
}

/** A path whose interpolated values (ids, as typed) are encoded: adminPath`/keys/${id}`. */
export function adminPath(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((path, text, i) => path + text + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');
}

/** Answers the response body of a 2xx; any other answer is thrown as the DomainError of its envelope. */
export type CallAdmin = (call: AdminCall) => Promise<unknown>;

/** Where a streamed answer goes, chunk by chunk, as it arrives. */
export type Sink = (chunks: AsyncIterable<Uint8Array>) => Promise<void>;

export interface OperatorApi {
  call: CallAdmin;
  /** A 2xx answer's body, streamed into `sink` without being held whole (a statement); any other answer is thrown. */
  download(call: AdminCall, sink: Sink): Promise<void>;
  close(): Promise<void>;
}

export type OpenDatabase = (config: Config) => Promise<Database>;

export interface Output {
  write(text: string): unknown;
}

interface Answer {
  status: number;
  body: unknown;
}

const ADMIN_PREFIX = '/admin/v1';

function target(call: AdminCall): string {
  const query = new URLSearchParams(Object.entries(call.query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return `${ADMIN_PREFIX}${call.path}${query.size ? `?${query}` : ''}`;
}

function unwrap({ status, body }: Answer): unknown {
  if (status < 300) return body;
  const error = (body as { error?: { code: ErrorCode; message: string; param: string | null } } | null)?.error;
  if (!error) throw new Error(`The operator API answered ${status}.`);
  throw new DomainError(error.code, error.message, error.param);
}

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Where the CLI's verbs go. On the embedded database held by a running server (it left its address in the data
 * directory), to that server's operator API; otherwise to the same API served in this process, on the
 * configured database. Either way the request and the answer are the operator API's, so the output is too.
 */
export async function openOperatorApi(config: Config, open: OpenDatabase, stderr: Output, serializers?: SerializerCache): Promise<OperatorApi> {
  const server = config.databaseUrl ? null : readRunningServer(config.dataDir);
  return server ? remoteApi(server, tokenFor(config, server)) : inProcessApi(config, open, stderr, serializers);
}

function tokenFor(config: Config, server: RunningServer): string {
  const token = config.adminToken ?? readStoredAdminToken(config.dataDir);
  if (!token) {
    throw new Error(
      `The server (process ${server.pid}) holds the embedded database in ${config.dataDir} and no operator token is stored ` +
        'there: set CONNECT_ADMIN_TOKEN to the token that server was started with.',
    );
  }
  return token;
}

function remoteApi(server: RunningServer, token: string): OperatorApi {
  return {
    async call(call) {
      const res = await fetch(`${server.url}${target(call)}`, {
        method: call.method,
        headers: { authorization: `Bearer ${token}`, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      });
      const text = await res.text();
      return unwrap({ status: res.status, body: text ? JSON.parse(text) : null });
    },
    async download(call, sink) {
      const res = await fetch(`${server.url}${target(call)}`, { method: call.method, headers: { authorization: `Bearer ${token}` } });
      if (res.status >= 300) unwrap({ status: res.status, body: JSON.parse(await res.text()) });
      await sink(res.body!);
    },
    close: async () => {},
  };
}

/** The operator API in this process, on the configured database; loaded only when needed (it is most of the code). */
async function inProcessApi(config: Config, open: OpenDatabase, stderr: Output, serializers?: SerializerCache): Promise<OperatorApi> {
  const [{ createContext }, { buildApp }, { pino }] = await Promise.all([import('../context.js'), import('../http/app.js'), import('pino')]);
  const db = await open(config);
  try {
    // A Redis outage is reported on stderr: stdout carries the verb's JSON.
    const ctx = await createContext(config, db, { redisLog: pino({ level: config.logLevel }, stderr) });
    const adminToken = randomBytes(32).toString('base64url');
    const app = await buildApp(ctx, { adminToken, logger: false, operatorOnly: true, serializers });
    return {
      async call(call) {
        const res = await app.inject({
          method: call.method,
          url: target(call),
          headers: { authorization: `Bearer ${adminToken}` },
          ...(call.body === undefined ? {} : { payload: call.body as object }),
        });
        return unwrap({ status: res.statusCode, body: res.body ? res.json() : null });
      },
      async download(call, sink) {
        const res = await app.inject({ method: call.method, url: target(call), headers: { authorization: `Bearer ${adminToken}` }, payloadAsStream: true });
        const body = res.stream();
        if (res.statusCode >= 300) unwrap({ status: res.statusCode, body: JSON.parse(await text(body)) });
        await sink(body);
      },
      async close() {
        await app.close();
        await ctx.limiter.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
